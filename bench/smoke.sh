#!/usr/bin/env bash
# Benchmark smoke run: every implementation through every workload it claims
# to support, for about a second each, plus the in-process benchmarks for a
# few iterations. Exits non-zero if any of them fails. Takes well under a
# minute; the full run is `go run ./cmd/benchall` (writes RESULTS.md).
set -euo pipefail
cd "$(dirname "$0")"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go run ./cmd/benchall -smoke -out "$out"
grep -q '^## W1' "$out"
echo "bench smoke: all workloads completed"
