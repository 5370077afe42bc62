#!/usr/bin/env bash
# Builds and runs one libFuzzer target (or all of them) for a while.
#
# Usage:
#   Scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]
#   Scripts/fuzz.sh all SECONDS          # every target in turn, SECONDS each
#   Scripts/fuzz.sh build [TARGET|all]   # build only
#   Scripts/fuzz.sh seeds                # (re)generate the seeds only
#   Scripts/fuzz.sh list                 # the target names
# Targets (one entry file each in Fuzz/, plus Fuzz/Support/FuzzSupport.swift; the unarchiver also
# compiles the test suite's models, Tests/TestSupport/ArchiveTestModels.swift):
#   binary-reader  Fuzz/BinaryReader.swift  binary plist read -> write -> read is equal; a lenient read
#                                           (isLenient) of what strict reading accepts gives the same value
#   xml-reader     Fuzz/XMLReader.swift     XML plist read -> write -> read is equal (when representable)
#   unarchiver     Fuzz/Unarchiver.swift    KeyedUnarchiver with an allow-list of models (one with a
#                                           cyclic back-reference); re-archived models decode equal
#                                           and archive to the same bytes again; the input also decoded
#                                           as a FoundationValue (catalogue value types included), through
#                                           decodeValue/decodeArray(ofAnyOf:), storedClassName and
#                                           decodeNumber, and as an ArchivableCodable model, re-archived
#                                           and required to decode equal
#   dump           Fuzz/Dump.swift          archive-dump in every mode, strict and --lenient, never traps;
#                                           raw graph round-trips; the lenient view of a valid archive
#                                           is the strict graph, and it finds damage in every archive
#                                           the strict reader rejects for breaking the archive's rules
#   typedstream    Fuzz/Typedstream.swift   typedstream read -> write -> read keeps the tables and writes the
#                                           same bytes again; Foundation values or a TypedstreamError; with
#                                           keepsUnknownObjects each top-level value is written by
#                                           TypedstreamArchiver, reads back equal and writes the same bytes
#                                           again (a kept root object: the raw model's bytes); the root read
#                                           as a small TypedstreamCodable class through TypedstreamDecoder
#                                           round-trips through TypedstreamEncoder
#   openstep-reader Fuzz/OpenStepReader.swift  OpenStep / .strings read: a value of strings, data, arrays and
#                                           dictionaries or a PropertyListError; binary round trip; the
#                                           detecting entry point agrees; Foundation (CoreFoundation's
#                                           parser) reads the same value from short inputs
#   nested         Fuzz/Nested.swift        ForensicReader and archive-dump --nested (tree, JSON, timeline, DOT)
#                                           on the input and on the input nested in a plist and an archive:
#                                           never traps, offsets point at payloads, JSON parses, no self-diff
#
# Environment:
#   FUZZ_WORK      work dir (default fuzz-work/, ignored by git). Per target: corpus/TARGET (grows
#                  across runs), artifacts/TARGET (crashes, timeouts, ooms: the findings), logs/TARGET.log.
#   FUZZ_JOBS      libFuzzer -jobs (default 1; the run's output then goes to the log above).
#   FUZZ_NICE      nice level for builds and fuzzers (default 19, so other work on the machine is not starved).
#   FUZZ_NO_SEEDS  1: reuse FUZZ_WORK/seeds if present instead of regenerating them.
#   FUZZ_OPT       optimization flag for the build (default -O).
#
# Seeds: with FUZZ_SEED_DIR set, `swift test --filter FuzzSeedCorpus` writes the archives and property
# lists the tests build (Tests/KeyedArchiveTests/Fuzz/FuzzRegressionSeedCorpus.swift) into FUZZ_WORK/seeds.
# ../shared/corpus, when present, is copied into FUZZ_WORK at run time (never into the repository).
#
# Build: KeyedArchive and ArchiveDumpCore are compiled as separate modules (static libraries built with
# -sanitize=fuzzer,address, which instruments them without adding a main), then each entry file is
# compiled as its own small module that imports them, into .build-fuzz/fuzz-TARGET. Package.swift is
# not involved. Libraries are rebuilt only when a source file is newer than the library, whose time is
# the start of its build (so an edit made during a build is picked up by the next run).
#
# Limits per run: -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 -timeout=10 (30 for nested: it reads
# each input seven times, as itself, inside a property list and an archive and in four archive-dump modes, and a
# 22 KB nib takes 5 s of that under ASan on an idle core, more on a loaded machine).
# Leak detection is off (ASAN_OPTIONS=detect_leaks=0): Foundation leaks small allocations on some error
# paths, which would be reported as findings that are not this package's.
# Exit status: 0 when no finding; 1 when a target found something (see artifacts/TARGET and the log).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

TARGETS=(binary-reader xml-reader unarchiver dump typedstream openstep-reader nested)
# A property violation ends in fatalError; Swift's backtracer under ASan prints a misleading memory error
# and can hang on a pipe, so it is off unless the caller asks for it.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
WORK=${FUZZ_WORK:-$ROOT/fuzz-work}
BUILD=$ROOT/.build-fuzz
SWIFTC=${SWIFTC:-swiftc}
OPT=${FUZZ_OPT:--O}
NICE=${FUZZ_NICE:-19}
JOBS=${FUZZ_JOBS:-1}
FLAGS=(-sanitize=fuzzer,address -parse-as-library -package-name KeyedArchive "$OPT" -g)
# Models shared with the test suite (Tests/TestSupport), compiled into the unarchiver target.
SHARED_MODELS=Tests/TestSupport/ArchiveTestModels.swift

entry_file() {
    case "$1" in
        binary-reader) echo Fuzz/BinaryReader.swift ;;
        xml-reader) echo Fuzz/XMLReader.swift ;;
        unarchiver) echo Fuzz/Unarchiver.swift ;;
        dump) echo Fuzz/Dump.swift ;;
        typedstream) echo Fuzz/Typedstream.swift ;;
        openstep-reader) echo Fuzz/OpenStepReader.swift ;;
        nested) echo Fuzz/Nested.swift ;;
        *) echo "unknown target '$1' (targets: ${TARGETS[*]})" >&2; return 64 ;;
    esac
}

# Builds a library as a module; skipped when no source file is newer than the library.
build_library() { # NAME SOURCE_DIR
    local name=$1 dir=$2 lib=$BUILD/lib/lib$1.a
    mkdir -p "$BUILD/lib" "$BUILD/modules"
    if [[ -f $lib ]] && [[ -z $(find "$dir" -name '*.swift' -newer "$lib" | head -1) ]]; then return 0; fi
    echo "== building $name (fuzz-instrumented)" >&2
    rm -f "$lib"
    # The library gets the time the build started: a source edited while it compiles is newer than
    # the library, so the next run rebuilds instead of fuzzing stale code.
    local started=$BUILD/stamps/$name.started
    mkdir -p "$BUILD/stamps" && touch "$started"
    local sources
    mapfile -t sources < <(find "$dir" -name '*.swift' | sort)
    # ld.gold's "Cannot export local symbol '__asan_...'" warnings are harmless and filtered out.
    nice -n "$NICE" "$SWIFTC" "${FLAGS[@]}" -emit-library -static -emit-module -module-name "$name" \
        -I "$BUILD/modules" "${sources[@]}" \
        -emit-module-path "$BUILD/modules/$name.swiftmodule" -o "$lib" 2>&1 | grep -v 'Cannot export local symbol' >&2 || true
    [[ -f $lib ]] || { echo "building $name failed" >&2; return 1; }
    touch -r "$started" "$lib"
}

# The module map of the package's header-only C target, which KeyedArchive imports (what SwiftPM generates for
# it), in the folder every compile here searches (-I "$BUILD/modules"): its functions are static inline, so
# there is nothing to link.
write_c_module_map() {
    mkdir -p "$BUILD/modules"
    local header
    header="$(pwd)/Sources/KeyedArchiveCSupport/include/KeyedArchiveCSupport.h"
    printf 'module KeyedArchiveCSupport {\n    umbrella header "%s"\n    export *\n}\n' "$header" > "$BUILD/modules/module.modulemap"
}

build_target() { # TARGET
    local target=$1 entry exe=$BUILD/fuzz-$1
    entry=$(entry_file "$target")
    write_c_module_map
    build_library KeyedArchive Sources/KeyedArchive
    local libs=(-lKeyedArchive)
    if [[ $target == dump || $target == nested ]]; then
        build_library ArchiveDumpCore Sources/ArchiveDumpCore
        libs=(-lArchiveDumpCore -lKeyedArchive)
    fi
    # The unarchiver decodes the test suite's own models: the same file the tests compile.
    local shared=()
    if [[ $target == unarchiver ]]; then shared=("$SHARED_MODELS"); fi
    if [[ -x $exe ]] && [[ -z $(find "$entry" Fuzz/Support "${shared[@]}" "$BUILD/lib" -newer "$exe" | head -1) ]]; then return 0; fi
    echo "== building fuzz-$target" >&2
    # Linked under a temporary name and renamed: a running fork-mode fuzzer re-executes this path.
    rm -f "$exe.new"
    nice -n "$NICE" "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_${target//-/_}" -I "$BUILD/modules" \
        Fuzz/Support/*.swift "${shared[@]}" "$entry" -L "$BUILD/lib" "${libs[@]}" -o "$exe.new" 2>&1 | grep -v 'Cannot export local symbol' >&2 || true
    [[ -x $exe.new ]] || { echo "building fuzz-$target failed" >&2; return 1; }
    mv -f "$exe.new" "$exe"
}

# Writes the seeds the test suite generates into $WORK/seeds/<kind>/.
make_seeds() {
    if [[ ${FUZZ_NO_SEEDS:-0} == 1 && -d $WORK/seeds ]]; then return 0; fi
    echo "== generating seeds with the test suite" >&2
    rm -rf "$WORK/seeds"
    mkdir -p "$WORK/seeds"
    FUZZ_SEED_DIR="$WORK/seeds" nice -n "$NICE" swift test --filter FuzzSeedCorpus >"$WORK/seeds.log" 2>&1 \
        || { echo "seed generation failed; see $WORK/seeds.log" >&2; tail -20 "$WORK/seeds.log" >&2; return 1; }
    local n
    n=$(find "$WORK/seeds" -type f | wc -l)
    echo "   $n seed files" >&2
    [[ $n -gt 0 ]] || { echo "no seeds were written (is FUZZ_SEED_DIR honoured?)" >&2; return 1; }
}

copy_shared_corpus() {
    local shared=$ROOT/../shared/corpus
    rm -rf "$WORK/shared-corpus"
    [[ -d $shared ]] || return 0
    mkdir -p "$WORK/shared-corpus"
    # A flat copy (the corpus has a folder per source); file names keep the path for reference.
    find "$shared" -type f ! -name '*.md' ! -name 'provenance.json' -size -64k | while read -r f; do
        cp "$f" "$WORK/shared-corpus/$(echo "${f#"$shared"/}" | tr '/' '_')"
    done
}

# The seed directories a target reads besides its own growing corpus.
seed_dirs() { # TARGET
    local dirs=()
    case "$1" in
        binary-reader) dirs=("$WORK/seeds/binary" "$WORK/seeds/archives-binary") ;;
        xml-reader) dirs=("$WORK/seeds/xml" "$WORK/seeds/archives-xml") ;;
        unarchiver|dump|nested) dirs=("$WORK/seeds/archives-binary" "$WORK/seeds/archives-xml" "$WORK/seeds/binary" "$WORK/seeds/xml") ;;
        typedstream) dirs=("$WORK/seeds/typedstream") ;;  # and the shared corpus's typedstream files
        openstep-reader) dirs=("$WORK/seeds/openstep") ;;
    esac
    dirs+=("$WORK/shared-corpus")
    for d in "${dirs[@]}"; do if [[ -d $d ]]; then echo "$d"; fi; done
}

# Seconds one input may take before libFuzzer reports a timeout (see "Limits per run" above).
per_input_timeout() { # TARGET
    if [[ $1 == nested ]]; then echo 30; else echo 10; fi
}

run_target() { # TARGET SECONDS [flags...]
    local target=$1 seconds=$2; shift 2
    local corpus=$WORK/corpus/$target artifacts=$WORK/artifacts/$target log=$WORK/logs/$target.log run=$WORK/run/$target
    mkdir -p "$corpus" "$artifacts" "$WORK/logs" "$run"
    rm -f "$run"/fuzz-*.log
    local seeds
    mapfile -t seeds < <(seed_dirs "$target")
    echo "== fuzzing $target for ${seconds}s (log: $log)" >&2
    local before status=0
    # libFuzzer also writes slow-unit-* files (an input that took over 10 s, below -timeout): a note, not a
    # finding; a timeout, a crash or a property violation is.
    before=$(find "$artifacts" -type f ! -name 'slow-unit-*' | wc -l)
    touch "$log.start"
    (cd "$run" && ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} nice -n "$NICE" \
        "$BUILD/fuzz-$target" -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 \
        -max_len=65536 -timeout="$(per_input_timeout "$target")" -jobs="$JOBS" -print_final_stats=1 \
        -artifact_prefix="$artifacts/" "$@" "$corpus" "${seeds[@]}") >"$log" 2>&1 || status=$?
    # With -jobs, each job writes fuzz-N.log in the working directory; libFuzzer copies it into its own
    # output (so into $log) when the job ends.
    rm -f "$run"/fuzz-*.log
    summarize "$target" "$log"
    local after
    after=$(find "$artifacts" -type f ! -name 'slow-unit-*' | wc -l)
    find "$artifacts" -type f -name 'slow-unit-*' -newer "$log.start" 2>/dev/null | sed 's/^/   note: slow input (under the timeout): /' >&2
    if [[ $status -ne 0 || $after -ne $before ]]; then
        echo "!! $target: finding (exit $status); artifacts in $artifacts:" >&2
        ls -t "$artifacts" | head -5 | sed 's/^/   /' >&2
        grep -m5 -E 'FUZZ PROPERTY VIOLATED|ERROR: (AddressSanitizer|libFuzzer)|Fatal error|SUMMARY' "$log" >&2 || true
        return 1
    fi
}

summarize() { # TARGET LOG
    local line
    line=$(grep -E '^#[0-9]+' "$2" | tail -1 || true)
    echo "   $1: ${line:-no stats}" >&2
    grep -E 'stat::(number_of_executed_units|peak_rss_mb)' "$2" | sed 's/^/   /' >&2 || true
    echo "   corpus: $(find "$WORK/corpus/$1" -type f | wc -l) files" >&2
}

main() {
    local command=${1:-}
    case "$command" in
        ""|-h|--help) sed -n '2,/^set /{/^#/p}' "$0"; exit 0 ;;
        list) printf '%s\n' "${TARGETS[@]}"; exit 0 ;;
        seeds) FUZZ_NO_SEEDS=0 make_seeds; exit 0 ;;
        build)
            local which=${2:-all}
            if [[ $which == all ]]; then for t in "${TARGETS[@]}"; do build_target "$t"; done; else build_target "$which"; fi
            exit 0 ;;
    esac
    local seconds=${2:?usage: Scripts/fuzz.sh TARGET|all SECONDS}
    shift 2
    local targets=("$command")
    [[ $command == all ]] && targets=("${TARGETS[@]}")
    for t in "${targets[@]}"; do entry_file "$t" >/dev/null; done
    for t in "${targets[@]}"; do build_target "$t"; done
    make_seeds
    copy_shared_corpus
    local failed=0
    for t in "${targets[@]}"; do run_target "$t" "$seconds" "$@" || failed=1; done
    exit $failed
}

main "$@"
