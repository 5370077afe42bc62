#!/usr/bin/env bash
# Builds the GNUstep interop oracle (Tests/GNUstepOracle/oracle.m) and prints the path of the binary.
# `gnustep-oracle.sh gui` builds the AppKit one instead (Tests/GNUstepOracle/gui-oracle.m, linked with
# gnustep-gui), so the Foundation oracle never needs gnustep-gui.
#
# The binary is cached in .build/gnustep-oracle/, keyed by a hash of its source, so it is rebuilt only when
# the source changes. Exit status: 0 (path printed); 3 when GNUstep (gcc's Objective-C, gnustep-config and
# the Foundation headers, plus the AppKit headers for `gui`) is not installed, with a message on stderr (on
# Debian: apt-get install gobjc libgnustep-base-dev gnustep-base-runtime, and libgnustep-gui-dev
# gnustep-gui-runtime for `gui`); 1 when GNUstep is installed but the build fails (a real error).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
program=oracle
packages="gobjc libgnustep-base-dev gnustep-base-runtime"
libs=--base-libs
if [[ "${1:-}" == "gui" ]]; then
    program=gui-oracle
    packages="$packages libgnustep-gui-dev gnustep-gui-runtime"
    libs=--gui-libs
elif [[ $# -gt 0 ]]; then
    echo "usage: gnustep-oracle.sh [gui]" >&2
    exit 64
fi
source="$root/Tests/GNUstepOracle/$program.m"
cache="$root/.build/gnustep-oracle"

missing() {
    echo "gnustep-oracle: $1 not found; install $packages" >&2
    exit 3
}
for tool in gcc gnustep-config sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || missing "$tool"
done
headers="$(gnustep-config --variable=GNUSTEP_SYSTEM_HEADERS)/Foundation/Foundation.h"
[[ -f "$headers" ]] || missing "$headers"
if [[ "$program" == gui-oracle ]]; then
    appkit="$(gnustep-config --variable=GNUSTEP_SYSTEM_HEADERS)/AppKit/AppKit.h"
    [[ -f "$appkit" ]] || missing "$appkit"
fi
[[ -n "$(gcc -print-prog-name=cc1obj 2>/dev/null | grep /)" ]] || missing "gcc's Objective-C compiler (cc1obj)"

hash="$(sha256sum "$source" | cut -c1-16)"
binary="$cache/$program-$hash"
if [[ ! -x "$binary" ]]; then
    mkdir -p "$cache"
    # Build into a per-process name, then rename: concurrent test processes never see a half-written file.
    partial="$cache/.$program-$hash.$$"
    # shellcheck disable=SC2046  # gnustep-config prints several flags that must be split
    if ! gcc $(gnustep-config --objc-flags) -MF /dev/null "$source" -o "$partial" $(gnustep-config "$libs") \
            >"$cache/$program-build.log" 2>&1; then
        echo "gnustep-oracle: compiling $source failed:" >&2
        cat "$cache/$program-build.log" >&2
        rm -f "$partial"
        exit 1
    fi
    mv -f "$partial" "$binary"
fi
# Builds of earlier versions of this program are no longer needed.
find "$cache" -maxdepth 1 -name "$program-*" ! -name "$program-$hash" ! -name "$program-build.log" -delete
echo "$binary"
