#!/bin/sh
# Builds archive-peer (GNUstep's NSKeyedArchiver/NSKeyedUnarchiver as archive-bench's archive/unarchive peer)
# into Benchmarks/GNUstep/.build/archive-peer, where archive-bench looks for it (--gnustep overrides the path).
#
#     apt-get install gobjc libgnustep-base-dev     # gcc's Objective-C and GNUstep base (gnustep-config)
#     Benchmarks/GNUstep/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$here/.build"
# gnustep-config's flags include -g -O2 and -MMD (dependency files, not wanted here).
flags=$(gnustep-config --objc-flags | sed 's/-MMD//; s/-MP//')
${OBJC:-gcc} $flags -O2 -Wall -o "$here/.build/archive-peer" "$here/archive-peer.m" $(gnustep-config --base-libs)
echo "built $here/.build/archive-peer"
