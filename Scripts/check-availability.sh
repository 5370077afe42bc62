#!/usr/bin/env bash
# Finds uses of Apple APIs that are newer than the package's minimum Apple platforms (Package.swift's
# `platforms:`), which a Linux build cannot see: `String(validating:as:)` (macOS 15, iOS 18, tvOS 18,
# watchOS 11) compiles here and breaks the build of every Apple platform the package declares.
#
# It reads what the debug build already wrote: the index store (every reference of every target, tests
# included, with the referenced declaration's USR and its line and column), and compares each reference with
# the availability the toolchain's modules declare (their symbol graphs: Swift, Foundation,
# FoundationEssentials, Dispatch, Testing, ...) and the package's own `@available` declarations have. A use
# is an error unless an `if #available` / `guard #available` / `while #available` or an `@available` on an
# enclosing declaration covers every platform it needs, or Scripts/availability-allowlist.txt lists it with a
# reason. Code no Apple platform compiles (a `#if os(Linux)` clause, the `#else` of `#if canImport(Darwin)`)
# is skipped. Scripts/check_availability.py does the work; its header says how and what the check cannot see.
#
#   swift build --build-tests                  # or `swift test`: the debug build writes the index store
#   Scripts/check-availability.sh              # exit 1 and one `file:line:column: error:` line per finding
#   Scripts/check-availability.sh --build      # runs `swift build --build-tests` first
#   Scripts/check-availability.sh --self-test  # checks the checker on a throwaway package (a minute or two)
#
# Other options go to the checker (--scratch-path DIR when the build used one, --verbose). The first run
# extracts the toolchain's symbol graphs into .build/availability-check (about 30 s); later runs reuse them.
# Exit status: 0 no finding, 1 findings (or a stale allow-list entry), 2 the check could not run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
checker="$here/check_availability.py"

if [[ "${1:-}" == "--self-test" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    # The guard and `#if` logic first, without a build: each `X(` must be judged as its line's comment says
    # (G guarded for macOS 15, U unguarded, D in code no Apple platform compiles).
    cat > "$scratch/Regions.swift" <<'SWIFT'
func statements(_ v: Int) {
    switch v {
    case 1:
        guard #available(macOS 15, *) else { return }
        X() // G
    default:
        X() // U
    }
    let closure = {
        guard #available(macOS 15, *) else { return }
        X() // G
    }
    X() // U
    if v == 0 {
        X() // U
    } else if #available(macOS 15, *) {
        X() // G
    } else {
        X() // U
    }
    if X(), #available(macOS 15, *), X() { // U G
    }
    while #available(macOS 15, *) { X(); break } // G
    if #unavailable(macOS 15) { X() } else { X() } // U G
    guard #unavailable(macOS 15) else { X(); return } // G
    X() // U
    let text = "\(X()) { not a brace" // U
    /* if #available(macOS 15, *) { */ X() // U
    #if os(Linux)
    X() // D
    #elseif canImport(Darwin)
    X() // U
    #else
    X() // D
    #endif
    #if canImport(Glibc)
    X() // D
    #elseif canImport(Musl)
    X() // D
    #endif
    #if !canImport(Darwin) || os(Linux)
    X() // D
    #endif
    #if DEBUG
    X() // U
    #endif
    #if canImport(FoundationEssentials)
    X() // U
    #else
    X() // U
    #endif
}
struct Declarations {
    @available(macOS 15, *)
    var property: Int { X() } // G
    @available(macOS 15, *)
    init(value: Int) { X() } // G
    @available(macOS 15, *)
    subscript(index: Int) -> Int { X() } // G
    @available(macOS 15, *)
    static let stored = X() // G
    static let plain = X() // U
    func method() {
        @available(macOS 15, *)
        func local() { X() } // G
        X() // U
    }
}
@available(macOS 15, *)
extension Declarations {
    struct Inner { func f() { X() } } // G
}
SWIFT
    python3 "$checker" --check-regions "$scratch/Regions.swift" >"$scratch/regions.out" 2>&1 \
        || { echo "error: self-test: guard regions misjudged:" >&2; cat "$scratch/regions.out" >&2; exit 1; }
    regions_summary="$(tail -1 "$scratch/regions.out")"

    # A throwaway package with the same minimum platforms as this one: a library and its test target with the
    # unguarded uses (Unguarded, UnguardedTests), and a library and its test target with the same uses
    # guarded (Guarded, GuardedTests). One build; each half is checked on its own (--only).
    package="$scratch/Probe"
    mkdir -p "$package/Sources/Unguarded" "$package/Tests/UnguardedTests" "$package/Sources/Guarded" \
        "$package/Tests/GuardedTests"
    cat > "$package/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Probe",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    targets: [
        .target(name: "Unguarded"),
        .testTarget(name: "UnguardedTests", dependencies: ["Unguarded"]),
        .target(name: "Guarded"),
        .testTarget(name: "GuardedTests", dependencies: ["Guarded"]),
    ]
)
SWIFT
    # Must be reported: String(validating:as:) in the library (line 5), the same behind a guard that names
    # macOS only (line 9: iOS, tvOS and watchOS stay unguarded), DateComponents.dayOfYear in a test (line 6),
    # and the library's own @available(macOS 15, ...) function called from a test (line 8).
    cat > "$package/Sources/Unguarded/Unguarded.swift" <<'SWIFT'
import FoundationEssentials

public enum Unguarded {
    public static func text(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
    public static func macOSOnly(_ bytes: [UInt8]) -> String? {
        if #available(macOS 15, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return nil
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    public static func newer() -> Int { 15 }
}
SWIFT
    cat > "$package/Tests/UnguardedTests/UnguardedTests.swift" <<'SWIFT'
import FoundationEssentials
import Unguarded

// Not run: the check reads the build's index, so a test target that compiles is enough.
func probeDayOfYear() -> Int? {
    DateComponents().dayOfYear
}
func probeNewer() -> Int { Unguarded.newer() }
SWIFT
    # Must not be reported: the same uses guarded in every way the check knows (7 uses), one use in code that
    # only Linux compiles (counted as skipped), and two uses that are newer on Linux only (product, sum).
    cat > "$package/Sources/Guarded/Guarded.swift" <<'SWIFT'
import FoundationEssentials

public enum Guarded {
    public static func text(_ bytes: [UInt8]) -> String? {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return nil
    }
    public static func guarded(_ bytes: [UInt8]) -> String? {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    public static func marked(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
    public static func older(_ bytes: [UInt8]) -> String? {
        if #unavailable(macOS 15, iOS 18, tvOS 18, watchOS 11) {
            return nil
        } else {
            return String(validating: bytes, as: UTF8.self)
        }
    }
    #if os(Linux)
    public static func linuxOnly(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
    #endif
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
    public static func newer() -> Int { 15 }
    // Not uses of newer APIs on Apple platforms: FixedWidthInteger.&* became a requirement in macOS 15, but
    // its default implementation is older; a `for await` loop calls next(isolation:) only where it exists.
    public static func product(_ a: Int, _ b: Int) -> Int { a &* b }
    public static func sum(_ numbers: AsyncStream<Int>) async -> Int {
        var total = 0
        for await number in numbers { total &+= number }
        return total
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
extension Guarded {
    public static func inExtension(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
}
SWIFT
    cat > "$package/Tests/GuardedTests/GuardedTests.swift" <<'SWIFT'
import FoundationEssentials
import Guarded

// Not run: the check reads the build's index, so a test target that compiles is enough.
func probeDayOfYear() -> Int? {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return DateComponents().dayOfYear
    }
    return nil
}
func probeNewer() -> Int {
    guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return 0 }
    return Guarded.newer()
}
SWIFT
    if ! swift build --package-path "$package" --build-tests >"$scratch/build.log" 2>&1; then
        echo "error: self-test: the probe package does not build:" >&2
        tail -20 "$scratch/build.log" >&2
        exit 2
    fi
    # The symbol graphs are the toolchain's, whatever the package: the self-test shares this package's cache.
    graphs="$here/../.build/availability-check"
    check() {  # check NAME EXPECTED-EXIT ARGS...: runs the checker on the probe, keeps its output in NAME.out
        local name="$1" expected="$2" status=0
        shift 2
        python3 "$checker" --package-path "$package" --graph-cache "$graphs" "$@" >"$scratch/$name.out" \
            2>"$scratch/$name.err" || status=$?
        if [[ "$status" -ne "$expected" ]]; then
            echo "error: self-test: $name: exit $status, expected $expected" >&2
            cat "$scratch/$name.out" "$scratch/$name.err" >&2
            exit 1
        fi
    }
    expect_line() {  # expect_line NAME PATTERN: NAME.out has a line matching PATTERN
        if ! grep -Eq "$2" "$scratch/$1.out"; then
            echo "error: self-test: $1: no line matches: $2" >&2
            cat "$scratch/$1.out" >&2
            exit 1
        fi
    }
    expect_count() {  # expect_count NAME PATTERN COUNT: NAME.out has exactly COUNT lines matching PATTERN
        local count
        count="$(grep -cE "$2" "$scratch/$1.out" || true)"
        if [[ "$count" -ne "$3" ]]; then
            echo "error: self-test: $1: $count lines match '$2', expected $3" >&2
            cat "$scratch/$1.out" >&2
            exit 1
        fi
    }
    unguarded=(--only Sources/Unguarded --only Tests/UnguardedTests)
    introduced='is introduced in iOS 18\.0, macOS 15\.0, tvOS 18\.0, watchOS 11\.0'

    check unguarded 1 "${unguarded[@]}" --allowlist /dev/null
    expect_line unguarded "^Sources/Unguarded/Unguarded\.swift:5:9: error: String\.init\(validating:as:\) $introduced"
    expect_line unguarded "^Sources/Unguarded/Unguarded\.swift:9:20: error: String\.init\(validating:as:\) .* not guarded for iOS 18\.0, tvOS 18\.0, watchOS 11\.0 "
    expect_line unguarded "^Tests/UnguardedTests/UnguardedTests\.swift:6:22: error: DateComponents\.dayOfYear $introduced"
    expect_line unguarded "^Tests/UnguardedTests/UnguardedTests\.swift:8:38: error: newer\(\) \(Sources/Unguarded/Unguarded\.swift:14\) $introduced"
    expect_count unguarded ': error: ' 4

    # The same findings allowed by an allow-list (by name, by USR, in every file); an entry matching nothing
    # fails the check.
    cat > "$scratch/allowlist.txt" <<'LIST'
# API FILE REASON
String.init(validating:as:) Sources/Unguarded/Unguarded.swift the probe's planted uses
s:20FoundationEssentials14DateComponentsV9dayOfYearSiSgvp Tests/UnguardedTests/UnguardedTests.swift the probe's planted use
s:9UnguardedAAO5newerSiyFZ * the probe's planted use
LIST
    check allowed 0 "${unguarded[@]}" --allowlist "$scratch/allowlist.txt"
    expect_count allowed ': error: ' 0
    expect_line allowed ', 4 allowed, 0 stale'
    echo 'Int128 Sources/Unguarded/Unguarded.swift no such use' >> "$scratch/allowlist.txt"
    check stale 1 "${unguarded[@]}" --allowlist "$scratch/allowlist.txt"
    expect_line stale 'allowlist\.txt:5: error: allow-list entry matches no finding: Int128'

    check guarded 0 --only Sources/Guarded --only Tests/GuardedTests --allowlist /dev/null --verbose
    expect_count guarded ': error: ' 0
    expect_count guarded '^guarded: ' 7
    expect_line guarded ', 1 use\(s\) in code no Apple platform compiles'
    # A source edited after the build: the index no longer describes it, so the check refuses to run.
    sleep 1
    touch "$package/Sources/Guarded/Guarded.swift"
    check edited 2 --only Sources/Guarded --allowlist /dev/null
    if ! grep -q 'the index store is older than 1 source file' "$scratch/edited.err"; then
        echo "error: self-test: edited: no complaint about the stale index" >&2
        cat "$scratch/edited.err" >&2
        exit 1
    fi
    echo "self-test: $regions_summary"
    echo "self-test: 4 of 4 unguarded uses reported (library, macOS-only guard, test, the library's own" \
         "@available function); allow-list honoured, stale entry rejected; 7 guarded uses and 1 Linux-only use" \
         "not reported; a stale index refused"
    exit 0
fi

if [[ "${1:-}" == "--build" ]]; then
    shift
    (cd "$here/.." && swift build --build-tests)
fi
exec python3 "$checker" --package-path "$here/.." "$@"
