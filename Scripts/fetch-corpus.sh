#!/usr/bin/env bash
# Puts the shared corpus of real files where the tests look for it (Tests/TestSupport/Corpus.swift:
# <package root>/../shared/corpus, or $KEYEDARCHIVE_CORPUS), on a machine that does not have it, such as
# the Apple workflow's macOS runners.
#
#   Scripts/fetch-corpus.sh [--from DIR] [DEST]
#
# Each file listed in Scripts/corpus-sources.tsv is fetched from its public origin (the GitHub repository
# and commit it was taken from), or copied from DIR with --from (a corpus already on this machine), and
# written only when its SHA-256 is the one listed. Then provenance.json, the list the tests read, is written
# from the same table. DEST defaults to ../shared/corpus beside the package. MANIFEST.md, the corpus's
# description, is not public: the one test that reads it is skipped without it.
set -euo pipefail
cd "$(dirname "$0")/.."

from=""
if [[ "${1:-}" == "--from" ]]; then
    from="${2:?--from needs a folder}"
    shift 2
fi
dest="${1:-../shared/corpus}"
sources=Scripts/corpus-sources.tsv

sha256() {
    if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

mkdir -p "$dest"
count=0
failed=0
entries=()
while IFS=$'\t' read -r file repo commit path expected; do
    [[ -z "$file" || "$file" == \#* ]] && continue
    target="$dest/$file"
    mkdir -p "$(dirname "$target")"
    partial="$target.partial"
    if [[ -f "$target" && "$(sha256 "$target")" == "$expected" ]]; then
        :
    elif [[ -n "$from" ]]; then
        cp "$from/$file" "$partial"
    else
        # Paths are percent-encoded for the URL (spaces and other characters some fixtures' names hold).
        encoded="$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$path")"
        curl --fail --silent --show-error --location --retry 3 -o "$partial" \
            "https://raw.githubusercontent.com/$repo/$commit/$encoded" || { echo "error: could not fetch $file ($repo $path)" >&2; failed=$((failed + 1)); rm -f "$partial"; continue; }
    fi
    if [[ -f "$partial" ]]; then
        actual="$(sha256 "$partial")"
        if [[ "$actual" != "$expected" ]]; then
            echo "error: $file: SHA-256 $actual, expected $expected" >&2
            rm -f "$partial"
            failed=$((failed + 1))
            continue
        fi
        mv "$partial" "$target"
    fi
    entries+=("$file")
    count=$((count + 1))
done < "$sources"

# provenance.json: the files the tests enumerate (Corpus.files()), with where each came from.
python3 - "$sources" "$dest/provenance.json" <<'PYTHON'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8") if line.strip() and not line.startswith("#")]
entries = [{"file": f, "repo": r, "commit": c, "path": p, "sha256": h} for f, r, c, p, h in rows]
existing = None
try:
    existing = json.load(open(sys.argv[2], encoding="utf-8"))
except (OSError, ValueError):
    pass
# A provenance.json already there (the shared corpus's own, with licences and notes) is kept.
if not existing:
    json.dump(entries, open(sys.argv[2], "w", encoding="utf-8"), indent=1)
PYTHON

echo "corpus: $count files in $dest${from:+ (copied from $from)}, $failed failed"
[[ $failed -eq 0 ]]
