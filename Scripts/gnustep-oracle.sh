#!/usr/bin/env bash
# Builds the GNUstep interop oracle (Tests/GNUstepOracle/oracle.m) and prints the path of the binary.
#
# The binary is cached in .build/gnustep-oracle/, keyed by a hash of oracle.m, so it is rebuilt only when
# the source changes. Exit status: 0 (path printed); 3 when GNUstep (gcc's Objective-C, gnustep-config and
# the Foundation headers) is not installed, with a message on stderr (on Debian: apt-get install gobjc
# libgnustep-base-dev gnustep-base-runtime); 1 when GNUstep is installed but the build fails (a real error).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source="$root/Tests/GNUstepOracle/oracle.m"
cache="$root/.build/gnustep-oracle"

missing() {
    echo "gnustep-oracle: $1 not found; install gobjc libgnustep-base-dev gnustep-base-runtime" >&2
    exit 3
}
for tool in gcc gnustep-config sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || missing "$tool"
done
headers="$(gnustep-config --variable=GNUSTEP_SYSTEM_HEADERS)/Foundation/Foundation.h"
[[ -f "$headers" ]] || missing "$headers"
[[ -n "$(gcc -print-prog-name=cc1obj 2>/dev/null | grep /)" ]] || missing "gcc's Objective-C compiler (cc1obj)"

hash="$(sha256sum "$source" | cut -c1-16)"
binary="$cache/oracle-$hash"
if [[ ! -x "$binary" ]]; then
    mkdir -p "$cache"
    # Build into a per-process name, then rename: concurrent test processes never see a half-written file.
    partial="$cache/.oracle-$hash.$$"
    # shellcheck disable=SC2046  # gnustep-config prints several flags that must be split
    if ! gcc $(gnustep-config --objc-flags) -MF /dev/null "$source" -o "$partial" $(gnustep-config --base-libs) \
            >"$cache/build.log" 2>&1; then
        echo "gnustep-oracle: compiling $source failed:" >&2
        cat "$cache/build.log" >&2
        rm -f "$partial"
        exit 1
    fi
    mv -f "$partial" "$binary"
fi
# Builds of earlier versions of oracle.m are no longer needed.
find "$cache" -maxdepth 1 -name 'oracle-*' ! -name "oracle-$hash" -delete
echo "$binary"
