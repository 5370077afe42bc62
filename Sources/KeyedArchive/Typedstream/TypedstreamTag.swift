/// The head bytes of the format: a value's first byte is either a one-byte integer or one of these tags
/// (the signed range -128 ... -111, of which Apple's writers use these), and reference numbers start right
/// after the tag range (0x92 is the first shared string, class or object).
enum TypedstreamTag {
    static let integer2: UInt8 = 0x81
    static let integer4: UInt8 = 0x82
    static let real: UInt8 = 0x83
    static let new: UInt8 = 0x84
    static let nilValue: UInt8 = 0x85
    static let endOfObject: UInt8 = 0x86
    /// An 8-byte integer: Apple writes it for a `q` value outside the 32-bit range (corpus
    /// `crabstep/foundation/NumberInt64`, `NSNumber(value: Int64(-9_000_000_000))`).
    static let integer8: UInt8 = 0x87
    /// The lowest and highest signed head values reserved for tags; a one-byte integer is outside them.
    static let tagRange: ClosedRange<Int8> = -128 ... -111
    /// The signed value that stands for reference 0 (head byte 0x92).
    static let firstReference: Int64 = -110
    /// `streamtyped`: the signature of little-endian data.
    static let littleEndianSignature = Array("streamtyped".utf8)
    /// `typedstream`: the signature of big-endian data.
    static let bigEndianSignature = Array("typedstream".utf8)
    /// The streamer version of every Mac OS X and macOS typedstream (NeXTSTEP's older 3 is not read, as
    /// pytypedstream does not read it).
    static let streamerVersion: UInt8 = 4
}
