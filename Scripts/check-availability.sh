#!/usr/bin/env bash
# Finds uses of Apple APIs that are newer than the package's minimum Apple platforms (Package.swift's
# `platforms:`), which a Linux build cannot see: `String(validating:as:)` (macOS 15, iOS 18, tvOS 18,
# watchOS 11) compiles here and breaks the build of every Apple platform the package declares.
#
# It reads what the debug build already wrote: the index store (every reference of every target, tests
# included, with the referenced declaration's USR and its line and column), and compares each reference with
# the availability the toolchain's modules declare (their symbol graphs: Swift, Foundation,
# FoundationEssentials, Dispatch, Testing, ...). A use is an error unless an `if #available` / `guard
# #available` / `while #available` or an `@available` on an enclosing declaration covers every platform it
# needs, or Scripts/availability-allowlist.txt lists it with a reason. Code no Apple platform compiles (a
# `#if os(Linux)` clause, the `#else` of `#if canImport(Darwin)`) is skipped. Scripts/check_availability.py
# does the work; its header says how and what the check cannot see.
#
#   swift build --build-tests                  # or `swift test`: the debug build writes the index store
#   Scripts/check-availability.sh              # exit 1 and one `file:line:column: error:` line per finding
#   Scripts/check-availability.sh --build      # runs `swift build --build-tests` first
#   Scripts/check-availability.sh --self-test  # checks the checker on a throwaway package (about 2 minutes)
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
    package="$scratch/Probe"
    mkdir -p "$package/Sources/Probe" "$package/Tests/ProbeTests"
    # The same minimum platforms as this package.
    cat > "$package/Package.swift" <<'EOF'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Probe",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    targets: [
        .target(name: "Probe"),
        .testTarget(name: "ProbeTests", dependencies: ["Probe"]),
    ]
)
EOF
    library="$package/Sources/Probe/Probe.swift"
    tests="$package/Tests/ProbeTests/ProbeTests.swift"

    # Unguarded: String(validating:as:) in the library (line 5), DateComponents.dayOfYear in a test (line 6),
    # and a guard that names macOS only (line 9 of the library: iOS, tvOS and watchOS stay unguarded).
    cat > "$library" <<'EOF'
import FoundationEssentials

public enum Probe {
    public static func text(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self)
    }
    public static func macOSOnly(_ bytes: [UInt8]) -> String? {
        if #available(macOS 15, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        return nil
    }
}
EOF
    cat > "$tests" <<'EOF'
import FoundationEssentials
import Probe

// Not run: the check reads the build's index, so a test target that compiles is enough.
func probeDayOfYear() -> Int? {
    DateComponents().dayOfYear
}
EOF
    run_check() {  # run_check NAME EXPECTED-EXIT: builds the probe, runs the checker, keeps its output
        local name="$1" expected="$2" status=0
        if ! swift build --package-path "$package" --build-tests >"$scratch/build-$name.log" 2>&1; then
            echo "error: self-test: the probe package ($name) does not build:" >&2
            tail -20 "$scratch/build-$name.log" >&2
            exit 2
        fi
        python3 "$checker" --package-path "$package" >"$scratch/$name.out" 2>"$scratch/$name.err" || status=$?
        if [[ "$status" -ne "$expected" ]]; then
            echo "error: self-test: $name: exit $status, expected $expected" >&2
            cat "$scratch/$name.out" "$scratch/$name.err" >&2
            exit 1
        fi
    }
    expect_line() {  # expect_line NAME PATTERN: the checker's output for NAME has a line matching PATTERN
        if ! grep -Eq "$2" "$scratch/$1.out"; then
            echo "error: self-test: $1: no line matches: $2" >&2
            cat "$scratch/$1.out" >&2
            exit 1
        fi
    }
    error_count() { grep -c ': error: ' "$scratch/$1.out" || true; }

    run_check unguarded 1
    expect_line unguarded '^Sources/Probe/Probe\.swift:5:9: error: String\.init\(validating:as:\) is introduced in iOS 18\.0, macOS 15\.0, tvOS 18\.0, watchOS 11\.0'
    expect_line unguarded '^Tests/ProbeTests/ProbeTests\.swift:6:22: error: DateComponents\.dayOfYear is introduced in iOS 18\.0, macOS 15\.0, tvOS 18\.0, watchOS 11\.0'
    expect_line unguarded '^Sources/Probe/Probe\.swift:9:20: error: String\.init\(validating:as:\) .* not guarded for iOS 18\.0, tvOS 18\.0, watchOS 11\.0 '
    if [[ "$(error_count unguarded)" -ne 3 ]]; then
        echo "error: self-test: unguarded: $(error_count unguarded) findings, expected 3" >&2
        cat "$scratch/unguarded.out" >&2
        exit 1
    fi

    # The same findings, allowed by an allow-list (by name for one, by USR for the other); a stale entry fails.
    cat > "$scratch/allowlist.txt" <<'EOF'
# API FILE REASON
String.init(validating:as:) Sources/Probe/Probe.swift the probe's planted use
s:20FoundationEssentials14DateComponentsV9dayOfYearSiSgvp Tests/ProbeTests/ProbeTests.swift the probe's planted use
EOF
    status=0
    python3 "$checker" --package-path "$package" --allowlist "$scratch/allowlist.txt" >"$scratch/allowed.out" 2>&1 \
        || status=$?
    expect_line allowed '3 allowed'
    [[ "$status" -eq 0 && "$(error_count allowed)" -eq 0 ]] \
        || { echo "error: self-test: allow-list: exit $status" >&2; cat "$scratch/allowed.out" >&2; exit 1; }
    echo 'Int128 Sources/Probe/Probe.swift no such use' >> "$scratch/allowlist.txt"
    status=0
    python3 "$checker" --package-path "$package" --allowlist "$scratch/allowlist.txt" >"$scratch/stale.out" 2>&1 \
        || status=$?
    expect_line stale 'allowlist\.txt:4: error: allow-list entry matches no finding'
    [[ "$status" -eq 1 ]] || { echo "error: self-test: a stale allow-list entry passed" >&2; exit 1; }

    # Guarded in every way the checker knows; a use in Linux-only code is skipped. None may be reported.
    cat > "$library" <<'EOF'
import FoundationEssentials

public enum Probe {
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
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
extension Probe {
    public static func inExtension(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
}
EOF
    cat > "$tests" <<'EOF'
import FoundationEssentials
import Probe

// Not run: the check reads the build's index, so a test target that compiles is enough.
func probeDayOfYear() -> Int? {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
        return DateComponents().dayOfYear
    }
    return nil
}
EOF
    run_check guarded 0
    if [[ "$(error_count guarded)" -ne 0 ]] || ! grep -q '1 use(s) in code no Apple platform compiles' "$scratch/guarded.out"; then
        echo "error: self-test: guarded: expected no finding and 1 Linux-only use" >&2
        cat "$scratch/guarded.out" >&2
        exit 1
    fi
    echo "self-test: 3 of 3 unguarded uses reported (library, test, macOS-only guard); allow-list honoured," \
         "stale entry rejected; 6 guarded uses and 1 Linux-only use not reported"
    exit 0
fi

if [[ "${1:-}" == "--build" ]]; then
    shift
    (cd "$here/.." && swift build --build-tests)
fi
exec python3 "$checker" --package-path "$here/.." "$@"
