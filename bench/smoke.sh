#!/usr/bin/env bash
# Benchmark smoke run: every implementation through every workload it claims
# to support, for about a second each, mcpgen on Redis too when redis-server
# is installed (W1, W3, what each operation costs Redis, and workload L), plus the
# in-process benchmarks for a few iterations. Exits non-zero if any of them
# fails. Takes about a minute; the full run is `go run ./cmd/benchall`
# (writes RESULTS.md).
#
# Build outputs belong in temporary folders (benchall builds serve and drive
# into one): the run must leave the work tree as it found it. A binary that a
# run leaves in this folder anyway is removed and named.
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
untracked() { git ls-files --others --exclude-standard . 2>/dev/null | sort; }
before=$(untracked)
go run ./cmd/benchall -smoke -out "$out"
grep -q '^## W1' "$out"
if command -v redis-server >/dev/null 2>&1; then
	# Workload L, briefly, on one Redis: the full run (both deployments) is
	# go run ./cmd/redisload.
	go run ./cmd/redisload -shapes single -busy 20 -idle 100 -d 1s
fi
while IFS= read -r f; do
	[ -n "$f" ] && [ -f "$f" ] && [ -x "$f" ] || continue
	if head -c 4 "$f" | grep -q 'ELF'; then
		rm -f "$f"
		echo "bench smoke: removed $f, a build output the run left in the work tree"
	fi
done < <(comm -13 <(echo "$before") <(untracked))
echo "bench smoke: all workloads completed"
