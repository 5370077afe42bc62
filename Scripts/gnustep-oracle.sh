#!/usr/bin/env bash
# Builds the GNUstep interop oracle (Tests/GNUstepOracle/oracle.m) and prints the path of the binary.
#
# The binary is cached in .build/gnustep-oracle/, keyed by a hash of oracle.m, so it is rebuilt only when
# the source changes. Exits 1 with a message on stderr when GNUstep (gcc's Objective-C, gnustep-config and
# libgnustep-base) is not installed; on Debian: apt-get install gobjc libgnustep-base-dev gnustep-base-runtime.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source="$root/Tests/GNUstepOracle/oracle.m"
cache="$root/.build/gnustep-oracle"

for tool in gcc gnustep-config sha256sum; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "gnustep-oracle: $tool not found; install gobjc libgnustep-base-dev gnustep-base-runtime" >&2
        exit 1
    fi
done

hash="$(sha256sum "$source" | cut -c1-16)"
binary="$cache/oracle-$hash"
if [[ ! -x "$binary" ]]; then
    mkdir -p "$cache"
    # Build into a per-process name, then rename: concurrent test processes never see a half-written file.
    partial="$cache/.oracle-$hash.$$"
    # shellcheck disable=SC2046  # gnustep-config prints several flags that must be split
    if ! gcc $(gnustep-config --objc-flags) -MF /dev/null -w "$source" -o "$partial" $(gnustep-config --base-libs) \
            >"$cache/build.log" 2>&1; then
        echo "gnustep-oracle: compiling $source failed (is libgnustep-base-dev installed?):" >&2
        cat "$cache/build.log" >&2
        rm -f "$partial"
        exit 1
    fi
    mv -f "$partial" "$binary"
fi
echo "$binary"
