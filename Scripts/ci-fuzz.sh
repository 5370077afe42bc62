#!/usr/bin/env bash
# CI fuzz step: every libFuzzer target for a short, fixed time, so a regression in the readers, the
# unarchiver, the dump renderers and the forensic reader is caught. Run after the tests (.ci/run does); about 7 minutes
# in all on 2 cores including the instrumented builds.
#
# Usage: Scripts/ci-fuzz.sh [SECONDS_PER_TARGET]   (default 45)
#
# Each run starts from an empty corpus plus the seeds the test suite writes (FuzzSeedCorpus) and
# ../shared/corpus when present, with a fixed libFuzzer seed (-seed=1), in fuzz-work/ci/ (ignored by
# git). Exits non-zero when any target finds a crash, a timeout, an out-of-memory or a violated
# round-trip property; the reproducer is printed in hex and kept in fuzz-work/ci/artifacts/TARGET/.
# Leak detection is off (see Scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-45}
export FUZZ_WORK=$PWD/fuzz-work/ci
export FUZZ_NICE=${FUZZ_NICE:-0}
rm -rf "$FUZZ_WORK/corpus" "$FUZZ_WORK/logs" "$FUZZ_WORK/artifacts"

status=0
Scripts/fuzz.sh all "$SECONDS_PER_TARGET" -seed=1 || status=$?
if [[ $status -ne 0 ]]; then
    echo "== fuzz findings" >&2
    find "$FUZZ_WORK/artifacts" -type f | while read -r f; do
        echo "-- $f ($(wc -c <"$f") bytes)" >&2
        head -c 640 "$f" | od -A d -t x1 >&2  # the first 640 bytes; od reads all head gives, so no SIGPIPE
    done
    for log in "$FUZZ_WORK"/logs/*.log; do
        if grep -qE 'FUZZ PROPERTY VIOLATED|ERROR: (AddressSanitizer|libFuzzer)|Fatal error' "$log"; then
            echo "-- $log" >&2
            grep -A30 -m1 -E 'FUZZ PROPERTY VIOLATED|ERROR: (AddressSanitizer|libFuzzer)|Fatal error' "$log" >&2 || true
        fi
    done
fi
exit $status
