/// The order in which `plutil` lists dictionary keys in `-p`, `raw`, the Swift and Objective-C literals
/// and pretty JSON: Foundation's `compare(_:options: [.numeric, .caseInsensitive, .forcedOrdering])` with
/// the root locale, as the toolchain's `plutil` sorts them (its `sortDictionaryKeys`).
///
/// Runs of ASCII digits compare as numbers (`z9` before `z10`); letters compare without case, and only a
/// tie is broken by case (lower case first: `ab` before `Ab`) and then by the code points. ASCII
/// punctuation and symbols come before digits and letters, in the root collation's order (`_` `-` `,` `;`
/// `:` `!` `?` `.` `'` `"` ... `$`), as ICU ranks them; other characters come after the letters, by code point.
enum PlutilKeyOrder {
    /// Whether `a` is listed before `b`.
    static func precedes(_ a: String, _ b: String) -> Bool {
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        var i = 0, j = 0
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                let (runX, endX) = digitRun(x, from: i), (runY, endY) = digitRun(y, from: j)
                if runX != runY { return runX.count != runY.count ? runX.count < runY.count : runX.lexicographicallyPrecedes(runY) }
                i = endX
                j = endY
                continue
            }
            let (wx, wy) = (primaryWeight(x[i]), primaryWeight(y[j]))
            if wx != wy { return wx < wy }
            i += 1
            j += 1
        }
        if (x.count - i) != (y.count - j) { return (x.count - i) < (y.count - j) }
        // Equal without case and leading zeros: lower case first at the first difference, then code points.
        for (p, q) in zip(x, y) where p != q {
            let (lowerP, lowerQ) = (isUpper(p) ? 1 : 0, isUpper(q) ? 1 : 0)
            if lowerP != lowerQ { return lowerP < lowerQ }
            return p.value < q.value
        }
        return x.count < y.count
    }

    /// The ASCII punctuation and symbols in the root collation's order.
    private static let punctuationOrder = Array("_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".unicodeScalars)

    /// The rank of one character, case folded: controls and space, punctuation, (digits are handled as
    /// runs), letters, then everything else by code point.
    private static func primaryWeight(_ s: Unicode.Scalar) -> UInt32 {
        let v = s.value
        if v <= 0x20 || v == 0x7F { return v == 0x7F ? 0x20 : v }
        if let rank = punctuationOrder.firstIndex(of: s) { return 0x100 + UInt32(rank) }
        if isDigit(s) { return 0x200 + v }
        if isUpper(s) { return 0x300 + v + 0x20 }
        if v >= 0x61, v <= 0x7A { return 0x300 + v }
        return 0x1000 + v
    }

    private static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }
    private static func isUpper(_ s: Unicode.Scalar) -> Bool { s.value >= 0x41 && s.value <= 0x5A }

    /// The digits of the run starting at `start` without leading zeros, and the index after the run.
    private static func digitRun(_ scalars: [Unicode.Scalar], from start: Int) -> ([UInt8], Int) {
        var end = start
        while end < scalars.count, isDigit(scalars[end]) { end += 1 }
        var digits = scalars[start..<end].map { UInt8($0.value) }
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst() }
        return (digits, end)
    }
}
