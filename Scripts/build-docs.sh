#!/usr/bin/env bash
# Builds the DocC documentation of the KeyedArchive module with the toolchain's own `docc`: no SwiftPM
# plugin, so the root manifest stays dependency-free. Fails on any DocC warning (a broken ``Symbol`` or
# <doc:Article> link, an ambiguous overload, an unknown parameter...).
#
#   Scripts/build-docs.sh            # writes .build/docs/KeyedArchive.doccarchive
#   Scripts/build-docs.sh OUTPUT     # writes OUTPUT instead
#
# Steps: (1) build the KeyedArchive target alone in its own scratch path (.build/docs-build, so the flags
# below do not invalidate the ordinary debug build) with the compiler emitting the module's symbol graph
# (public declarations) into .build/docs-build/symbol-graphs (an up-to-date build emits nothing new, so the
# graphs stay beside the build that made them); (2) `docc convert` the catalog
# Sources/KeyedArchive/KeyedArchive.docc with that symbol graph and --warnings-as-errors.
# To read the result: `cd .build/docs/KeyedArchive.doccarchive && python3 -m http.server`, then open
# http://localhost:8000/documentation/keyedarchive (the archive is transformed for static hosting).
# The code examples of the articles are compiled and run by Tests/KeyedArchiveTests/DocumentationExampleTests.swift.
set -euo pipefail
cd "$(dirname "$0")/.."

output="${1:-.build/docs/KeyedArchive.doccarchive}"
scratch=".build/docs-build"
symbols="$PWD/$scratch/symbol-graphs"
catalog="Sources/KeyedArchive/KeyedArchive.docc"

docc=""
if command -v docc >/dev/null; then
    docc="$(command -v docc)"
elif [[ -x "$(dirname "$(command -v swift)")/docc" ]]; then
    docc="$(dirname "$(command -v swift)")/docc"
elif command -v xcrun >/dev/null && xcrun --find docc >/dev/null 2>&1; then
    docc="$(xcrun --find docc)"
else
    echo "error: docc not found (it ships with the Swift toolchain, next to swift)" >&2
    exit 1
fi

started=$(date +%s)
if [[ ! -f "$symbols/KeyedArchive.symbols.json" ]]; then
    rm -rf "$scratch"  # graphs missing: rebuild from scratch so the compiler emits them
fi
mkdir -p "$symbols"
echo "== symbol graph (swift build --target KeyedArchive)"
swift build --target KeyedArchive --scratch-path "$scratch" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$symbols" \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
if [[ ! -f "$symbols/KeyedArchive.symbols.json" ]]; then
    echo "error: the build wrote no symbol graph to $symbols" >&2
    exit 1
fi

echo "== docc convert"
rm -rf "$output"
mkdir -p "$(dirname "$output")"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$symbols" \
    --fallback-display-name KeyedArchive \
    --fallback-bundle-identifier keyedarchive.KeyedArchive \
    --output-path "$output" \
    --warnings-as-errors 2>&1 | tee "$log" || status=$?
# --warnings-as-errors makes docc fail on a warning; the grep also catches one printed without failing.
problems=$(grep -cE '^(warning|error): ' "$log" || true)
if [[ $status -ne 0 || $problems -ne 0 ]]; then
    echo "error: docc reported $problems warning(s)/error(s) (exit status $status); see above" >&2
    exit 1
fi
echo "== documentation in $output ($(( $(date +%s) - started )) s, 0 warnings)"
