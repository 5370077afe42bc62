#!/usr/bin/env bash
# Finds arithmetic that assumes a 64-bit `Int` in the code built for Apple Watch (`arm64_32`, where `Int`
# is 32 bits), which no 64-bit build or test can show:
#
# - a shift by a literal of 32 or more (`x << 32`, `y >> 40`, `<<=`) whose operand is not visibly a 64-bit
#   type: on a 32-bit `Int` Swift's shift gives 0 (or -1), silently. A line passes when it names `UInt64` or
#   `Int64`, or when the operand left of the shift is an identifier the same file declares as `UInt64` or
#   `Int64` (`var bits: UInt64`, `_ word: UInt64`).
# - `Int(UInt32.max ...)`, `Int(UInt64...)`, `Int(Int64...)` of a constant: traps at run time with a 32-bit
#   `Int`; `Int(clamping:)` or a fixed-width type says what is meant.
#
#   Scripts/check-int-width.sh            # checks Sources/ and Samples/; exit 1 and one line per finding
#   Scripts/check-int-width.sh PATH...    # checks these files or folders instead
#   Scripts/check-int-width.sh --self-test   # checks the checker on lines it must and must not report
#
# Comment lines are skipped. Tests are not checked: they run on 64-bit machines only.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${1:-}" == "--self-test" ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    # Each must be reported (one finding a line).
    printf '%s\n' 'let a = 1 << 32' 'while size < 1 << 40 { size <<= 1 }' 'x >>= 33' \
        'let b = Int(UInt32.max)' 'let c = count >> 48  // a trailing comment' \
        'static let tag: UInt32 = 1 << 31' 'let fits = offset <= Int(Self.tag)' > "$scratch/Bad.swift"
    # None of these may be reported.
    printf '%s\n' 'var bits: UInt64 = 0' 'let d = bits >> 48' 'let e = UInt64(1) << 62' 'let f = 1 << 31' \
        '// 1 << 32 in a comment' '/// Int(UInt32.max) in a doc comment' 'let g = Int(clamping: UInt32.max)' \
        'func h(_ word: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> 56) }' 'let i = x << 3' \
        'static let small: UInt8 = 7' 'let k = Int(Self.small)' > "$scratch/Good.swift"
    bad=$("$0" "$scratch/Bad.swift" 2>/dev/null | grep -c '^/' || true)
    good=$("$0" "$scratch/Good.swift" 2>/dev/null | grep -c '^/' || true)
    if [[ "$bad" -ne 6 || "$good" -ne 0 ]]; then
        echo "error: self-test: $bad of 6 bad lines reported, $good of 0 good lines reported" >&2
        exit 1
    fi
    echo "self-test: 6 of 6 bad lines reported, no good line reported"
    exit 0
fi

if [[ $# -gt 0 ]]; then roots=("$@"); else roots=(Sources Samples); fi

findings=0
report() {
    echo "$1:$2: $3"
    echo "    $4"
    findings=$((findings + 1))
}

while IFS= read -r -d '' file; do
    number=0
    while IFS= read -r line || [[ -n "$line" ]]; do
        number=$((number + 1))
        code="${line%%//*}"  # drop a trailing comment (and comment lines)
        [[ "$code" =~ [^[:space:]] ]] || continue

        if [[ "$code" =~ (<<|>>)=?[[:space:]]*(3[2-9]|[4-9][0-9]|[1-9][0-9][0-9])([^0-9]|$) ]] \
            && ! [[ "$code" =~ (UInt64|Int64) ]]; then
            operand=""
            if [[ "$code" =~ ([A-Za-z_][A-Za-z0-9_]*)\)?[[:space:]]*(<<|>>)=?[[:space:]]*[0-9] ]]; then
                operand="${BASH_REMATCH[1]}"
            fi
            if [[ -z "$operand" ]] || ! grep -Eq "(^|[^A-Za-z0-9_])${operand}[[:space:]]*:[[:space:]]*U?Int64([^A-Za-z0-9_]|$)" "$file"; then
                report "$file" "$number" "shift by 32 or more on an operand not known to be 64-bit (0 with a 32-bit Int)" "$line"
            fi
        fi

        if [[ "$code" =~ (^|[^A-Za-z0-9_.])Int\((UInt32\.max|UInt64|Int64) ]]; then
            report "$file" "$number" "Int(...) of a value above Int32.max traps with a 32-bit Int; use Int(clamping:) or a fixed-width type" "$line"
        elif [[ "$code" =~ (^|[^A-Za-z0-9_.])Int\((Self\.)?([A-Za-z_][A-Za-z0-9_]*)\) ]]; then
            constant="${BASH_REMATCH[3]}"
            # A constant the same file declares as a wider or unsigned 32-bit type may exceed Int32.max.
            if grep -Eq "let[[:space:]]+${constant}[[:space:]]*:[[:space:]]*(UInt32|UInt64|Int64)[[:space:]]*=" "$file"; then
                report "$file" "$number" "Int(...) of a constant declared UInt32/UInt64/Int64 traps with a 32-bit Int when it exceeds Int32.max; compare as the fixed-width type or use Int(clamping:)" "$line"
            fi
        fi
    done < "$file"
done < <(find "${roots[@]}" -name '*.swift' -type f -print0 | sort -z)

if [[ $findings -gt 0 ]]; then
    echo "error: $findings place(s) assume a 64-bit Int (Apple Watch's arm64_32 has a 32-bit one)" >&2
    exit 1
fi
echo "no arithmetic assuming a 64-bit Int in ${roots[*]}"
