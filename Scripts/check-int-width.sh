#!/usr/bin/env bash
# Finds code that assumes a 64-bit `Int`, which breaks on Apple Watch (`arm64_32`, where `Int` is 32 bits) and
# which no 64-bit build or test can show: an integer built in `Int` from bytes or shifted by 24 or more,
# `Int.max`/`Int.min` written into or compared with archive values, and `Int(...)` of a 64-bit value or of a
# constant above `Int32.max`. The rules, the inline marker and the allow-list (Scripts/int-width-allow.txt,
# each entry with its reason) are described in Scripts/check-int-width.pl, which does the work.
#
#   Scripts/check-int-width.sh              # checks Sources, Tests, Samples, Benchmarks and Fuzz; exit 1 and
#                                           # one finding a line (file:line: [rule] why, then the line)
#   Scripts/check-int-width.sh PATH...      # checks these files or folders instead (no allow-list)
#   Scripts/check-int-width.sh --self-test  # checks the checker on lines it must and must not report
set -euo pipefail
cd "$(dirname "$0")/.."
exec perl Scripts/check-int-width.pl "$@"
