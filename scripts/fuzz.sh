#!/usr/bin/env bash
# Fuzzes every fuzz target of the main module, starting from its seed
# corpus and testdata/fuzz (which `go test` already runs as ordinary tests):
# the targets whose code changed for FUZZTIME_CHANGED (default 20s), the
# rest briefly, for FUZZTIME (default 4s, one worker). Prints one line per
# target: its time, the inputs it ran and the new ones it found.
#
# What changed is what differs from FUZZ_BASE (default main, when there is
# such a branch): the commits since the merge base with it, and what is not
# committed yet. A target changed when its package, or a package of this
# module that the package imports (the code under test, not what only its
# tests import), has a changed file, or its testdata/fuzz does. FUZZ_BASE= (empty) treats every target as unchanged;
# FUZZ_BASE=all as changed. On main, nothing has changed: every target runs
# briefly.
#
# Each package's test binary is built once (go test -c) with coverage
# instrumentation for fuzzing (-d=libfuzzer, as go test -fuzz adds) in this
# module's packages; the standard library is left uninstrumented, so that it
# is not compiled a second time, and coverage guides the fuzzer through this
# module's code. Every target of the package runs from that binary
# (-test.fuzz), in the package's folder, with go test's fuzz cache.
#
# A failure prints the target's whole output with the failing input, which
# the binary writes under the package's testdata/fuzz so that it becomes a
# regression seed once committed. One failure is not the target's: before
# Go 1.27 the fuzzing coordinator can end a run with a bare "context
# deadline exceeded" when the fuzz time runs out under load
# (golang/go#75804), with no failing input; such a run is retried once.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
changed_time=${FUZZTIME_CHANGED:-20s}
brief_time=${FUZZTIME:-4s}
base=${FUZZ_BASE-main}
module=$(go list -m)
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpgen-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log
cache=$(go env GOCACHE)/fuzz

# changed_dirs: the folders (relative to the root) with a file that differs
# from the merge base with $base, committed or not; "*" for every folder.
changed_dirs() {
	case "$base" in
	"") return ;;
	all)
		echo "*"
		return
		;;
	esac
	local mb
	if ! git rev-parse -q --verify "$base^{commit}" >/dev/null || ! mb=$(git merge-base HEAD "$base" 2>/dev/null); then
		echo "fuzz: no ref $base to compare with (FUZZ_BASE): every target is fuzzed briefly" >&2
		return
	fi
	{
		git diff --name-only "$mb"
		git ls-files --others --exclude-standard
	} | while read -r f; do dirname "$f"; done | sort -u
}

# deps_changed PKG DIRS: whether PKG, a module package it imports, or its
# testdata/fuzz has a file in one of DIRS.
deps_changed() {
	local pkg=$1 dirs=$2 d
	[ -n "$dirs" ] || return 1
	[ "$dirs" = "*" ] && return 0
	for d in $(go list -deps -f '{{if not .Standard}}{{.Dir}}{{end}}' "$pkg") "$root/${pkg#./}/testdata/fuzz"; do
		d=${d#"$root"/}
		while IFS= read -r c; do
			case "$c" in "$d" | "$d"/*) return 0 ;; esac
		done <<<"$dirs"
	done
	return 1
}

# deadline_race: the run in $log failed only by the coordinator's race.
deadline_race() {
	grep -q '^    context deadline exceeded$' "$log" && ! grep -q -e 'Failing input written' -e 'panic:' "$log"
}

# fuzz BIN DIR PKG NAME TIME WORKERS: one run of one target, its output in $log.
fuzz() {
	(cd "$2" && "$1" -test.run='^$' -test.fuzz="^$4\$" -test.fuzztime="$5" -test.parallel="$6" \
		-test.fuzzcachedir="$cache/$module/${3#./}" -test.timeout=10m) >"$log" 2>&1
}

# The targets: FILE:NAME of every fuzz function of this module (the
# folders with a go.mod of their own are other modules).
nested=$(git ls-files '*/go.mod' | xargs -n1 dirname | sed 's|$|/|')
targets=$(git ls-files '*_test.go' | grep -v -F "${nested:-//}" | xargs grep -Ho '^func Fuzz[A-Za-z0-9_]*' | sed 's/func //' | sort)
dirs=$(changed_dirs)
status=0
for pkg in $(echo "$targets" | cut -d: -f1 | xargs -n1 dirname | sort -u | sed 's|^|./|'); do
	bin=$work/$(echo "${pkg#./}" | tr / _).test
	start=$(date +%s)
	if ! go test -c -o "$bin" -gcflags="$module/...=-d=libfuzzer" "$pkg" >"$log" 2>&1; then
		echo "FAIL $pkg: building its fuzz binary:"
		cat "$log"
		status=1
		continue
	fi
	time=$brief_time workers=1 why="unchanged"
	if deps_changed "$pkg" "$dirs"; then
		time=$changed_time workers=$(nproc 2>/dev/null || echo 2)
		why="changed"
	fi
	echo "     $pkg: fuzz binary built in $(($(date +%s) - start))s; its code $why since ${base:-(no base)}: ${time} per target"
	for name in $(echo "$targets" | grep "^${pkg#./}/[^/]*:" | cut -d: -f2); do
		note=""
		ok=true
		if ! fuzz "$bin" "$root/${pkg#./}" "$pkg" "$name" "$time" "$workers"; then
			if deadline_race; then
				note=", on a second run (the first ended in Go's fuzztime deadline race, golang/go#75804)"
				fuzz "$bin" "$root/${pkg#./}" "$pkg" "$name" "$time" "$workers" || ok=false
			else
				ok=false
			fi
		fi
		if $ok; then
			# The last progress line has the totals: "execs: N (R/sec), new interesting: K (total: T)".
			summary=$(grep -o 'execs: [0-9]*.*new interesting: [0-9]*' "$log" | tail -n 1 |
				sed -E 's/execs: ([0-9]+) \([0-9]+\/sec\), new interesting: ([0-9]+)/\1 inputs, \2 new/')
			echo "ok   $pkg $name ($time): ${summary:-no progress line}$note"
		else
			echo "FAIL $pkg $name ($time):"
			cat "$log"
			status=1
		fi
	done
done
exit $status
