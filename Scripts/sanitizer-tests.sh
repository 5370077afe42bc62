#!/usr/bin/env bash
# CI sanitizer step: the library builds under the Address and Thread Sanitizers, and the suites that
# exercise its unsafe code, its readers and its concurrency run under them with no report. Listed in
# CONTRIBUTING.md ("Sanitizers"), with the time each part takes on 2 cores.
#
# Usage: Scripts/sanitizer-tests.sh [address|thread|all]   (default all)
#
# Each sanitizer builds into its own scratch path (.build/asan, .build/tsan), so the main .build is left
# alone and a second run rebuilds only what changed. A sanitizer report fails the step: ASan and TSan
# stop the process at their first report (halt_on_error, ASan's default; set for TSan below), which the
# test run then reports as failed.
#
# LeakSanitizer is off (detect_leaks=0): Swift's runtime keeps metadata caches and the test runner
# keeps its own state for the process's lifetime, which LSan reports as leaks at exit whatever the
# code under test does; leaks are not what this step looks for (heap overflows, use-after-free, races).
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}

# The suites under ASan: the unsafe engine (binary property-list scanner, writer and scalar table, the
# archive storage and emitter, the file reader and mapped files), the readers (keyed, lazy, on-demand,
# typedstream, binary, XML and OpenStep property lists, forensic), the deep-nesting suites and the
# concurrency ones. Names are regular expressions over "Module.Suite/test".
asan_suites=(
    'KeyedArchiveTests\.(Binary|ZeroCopy|WideOffsetTable|PropertyListDeepNesting|SharedSubtreeWalk|XMLPropertyListReader|OpenStepReader)'
    'KeyedArchiveTests\.(ArchiveObjectWord|ArchiveFault|ArchiveValidityRule|DecodedObjectTable|DecoderReuse|DecodingThread|StackBudget|SecureDecoding|OnDemandUnarchiver|SharedEntryObject|InstanceByObjectTable|EntryCheckOrder)'
    'KeyedArchiveTests\.(ArchiverEmitter|EmitterRenumbering|ArchiveReadAhead|ArchiveInstanceArray|DeepFoundationValueArchiving|UncheckedExclusiveState)'
    'KeyedArchiveTests\.(Typedstream|Graph|DeepCodable|DeepCopy|DeepCountedSet|FoundationValueEquality|FoundationValueDescription|LazyArchivedObjectGraph|RawArchive)'
    'KeyedArchiveTests\.(FileReader|FileMappingDecision|FuzzRegression|SharedCoderConfiguration)'
    'ArchiveDumpTests\.(BatchInput|TypedstreamDump|NestedPayload|SharedSubtreeBomb)'
)
# Left out under ASan: the tests that nest a million levels (or 200,000) to show a reader needs no big
# stack; under ASan each takes minutes and more than 10 GiB (its redzones and quarantine), and the same
# readers are run by the suites above at thousands of levels.
asan_skip='[Mm]illion|TwoHundredThousand'

# The suites under TSan: decoders and coders shared across tasks and threads, the concurrent and
# continuation-thread decoding, and archive-dump's --jobs and --batch. Not the tests that nest tens of
# thousands of levels on one thread: TSan's shadow call stack holds 65,536 frames a thread
# (kShadowStackSize in compiler-rt's tsan_defs.h) and its runtime faults past that, whatever the stack.
tsan_suites=(
    'KeyedArchiveTests\.(SharedCoderConfiguration|StackBudget|DecoderReuse|AtomicFileWriter)'
    'KeyedArchiveTests\.DecodingThreadTests/(manyShallowObjects|concurrentUnarchives)'
    'ArchiveDumpTests\.(BatchInput|CatalogueRendering)'
)

join() { local IFS='|'; echo "$*"; }

run_sanitizer() {
    local sanitizer=$1 scratch=$2 filter=$3 skip=${4:-}
    local started
    started=$(date +%s)
    echo "== --sanitize=$sanitizer: the library alone"
    swift build --sanitize="$sanitizer" --scratch-path "$scratch" --target KeyedArchive
    echo "== --sanitize=$sanitizer: the tests"
    swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch"
    echo "== --sanitize=$sanitizer: built in $(( $(date +%s) - started )) s; running $filter"
    started=$(date +%s)
    KEYEDARCHIVE_TEST_SANITIZER=$sanitizer \
        swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" ${skip:+--skip "$skip"}
    echo "== --sanitize=$sanitizer: tests ran in $(( $(date +%s) - started )) s"
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1}

case $which in
    address) run_sanitizer address .build/asan "$(join "${asan_suites[@]}")" "$asan_skip" ;;
    thread) run_sanitizer thread .build/tsan "$(join "${tsan_suites[@]}")" ;;
    all)
        run_sanitizer address .build/asan "$(join "${asan_suites[@]}")" "$asan_skip"
        run_sanitizer thread .build/tsan "$(join "${tsan_suites[@]}")"
        ;;
    *) echo "usage: Scripts/sanitizer-tests.sh [address|thread|all]" >&2; exit 64 ;;
esac
