#!/usr/bin/env bash
# Runs every fuzz target of the main module for a short fixed time each
# (FUZZTIME, default 10s), starting from its seed corpus and testdata/fuzz.
# A failure prints the failing input, which go test writes under the
# package's testdata/fuzz so that it becomes a regression seed once committed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
while IFS=: read -r file name; do
	pkg=./$(dirname "$file")
	echo "--- $pkg $name ($fuzztime)"
	if ! go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg"; then
		status=1
	fi
done < <(git ls-files '*_test.go' | grep -v -e '^interop/' -e '^bench/' -e '^redisstore/' |
	xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' | sed 's/func //' | sort)
exit $status
