#!/usr/bin/env bash
# Runs every fuzz target of the main module for a short fixed time each
# (FUZZTIME, default 10s), starting from its seed corpus and testdata/fuzz,
# and prints one line per target: the inputs it ran and the new ones it
# found. go test's own last line for a target reads "0/sec" (its rate once
# fuzzing stopped, not a hang); it is shown only when a target fails.
#
# A failure prints go test's whole output with the failing input, which go
# test writes under the package's testdata/fuzz so that it becomes a
# regression seed once committed. One failure is not the target's: before Go
# 1.27 the fuzzing coordinator can end a run with a bare "context deadline
# exceeded" when -fuzztime runs out under load (golang/go#75804), with no
# failing input; such a run is retried once.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# fuzz PKG NAME: one run of one target, its output in $log.
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" >"$log" 2>&1; }

# deadline_race: the run in $log failed only by the coordinator's race.
deadline_race() {
	grep -q '^    context deadline exceeded$' "$log" && ! grep -q -e 'Failing input written' -e 'panic:' "$log"
}

status=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	note=""
	ok=true
	if ! fuzz "$pkg" "$name"; then
		if deadline_race; then
			note=", on a second run (the first ended in Go's fuzztime deadline race, golang/go#75804)"
			fuzz "$pkg" "$name" || ok=false
		else
			ok=false
		fi
	fi
	if $ok; then
		# The last progress line has the totals: "execs: N (R/sec), new interesting: K (total: T)".
		summary=$(grep -o 'execs: [0-9]*.*new interesting: [0-9]*' "$log" | tail -n 1 |
			sed -E 's/execs: ([0-9]+) \([0-9]+\/sec\), new interesting: ([0-9]+)/\1 inputs, \2 new/')
		echo "ok   $pkg $name ($fuzztime): ${summary:-no progress line}$note"
	else
		echo "FAIL $pkg $name ($fuzztime):"
		cat "$log"
		status=1
	fi
done < <(git ls-files '*_test.go' | grep -v -e '^interop/' -e '^bench/' -e '^redisstore/' |
	xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' | sed 's/func //' | sort)
exit $status
