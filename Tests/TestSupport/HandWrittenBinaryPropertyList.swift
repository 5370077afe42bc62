import Foundation

/// Binary property lists laid out by hand, object by object, for tests that need a structure no writer
/// produces (shared objects, repeated keys): one-byte references and offsets, object 0 the top.
public enum HandWrittenBinaryPropertyList {
    /// An ASCII string object of fewer than 15 bytes.
    public static func ascii(_ text: String) -> [UInt8] { [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
    /// A one-byte integer object.
    public static func int(_ value: UInt8) -> [UInt8] { [0x10, value] }
    /// A one-byte UID object.
    public static func uid(_ value: UInt8) -> [UInt8] { [0x80, value] }
    /// An array of fewer than 15 references.
    public static func array(_ refs: [UInt8]) -> [UInt8] { [0xA0 | UInt8(refs.count)] + refs }
    /// A dictionary of fewer than 15 entries: the key references, then the value references.
    public static func dict(_ keys: [UInt8], _ values: [UInt8]) -> [UInt8] { [0xD0 | UInt8(keys.count)] + keys + values }
    /// The string "NSKeyedArchiver" (15 bytes: its count follows the marker as an integer).
    public static let keyedArchiver: [UInt8] = [0x5F, 0x10, 15] + Array("NSKeyedArchiver".utf8)

    /// The file: the header, the objects in order, the offset table and the trailer (offset and reference
    /// size 1, top object 0). The objects must fit below byte 256.
    public static func file(_ objects: [[UInt8]]) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(out.count))
            out += object
        }
        let tableOffset = out.count
        out += offsets
        out += [0, 0, 0, 0, 0, 0, 1, 1]                                          // unused, sort, offset size, ref size
        out += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)  // object count
        out += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)              // top object
        out += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)    // offset table
        return Data(out)
    }
}
