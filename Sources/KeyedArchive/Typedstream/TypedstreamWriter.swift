#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a ``TypedstreamArchive`` as Apple's `NSArchiver` writes it, iteratively (an object stored inside
/// an object is a frame on a heap stack, not Swift recursion).
///
/// What it shares, as Apple's writer does: a shared string (type encodings, class names, selectors, atoms,
/// C string contents) is written once and then referred to by its number; a class is written once (name,
/// version, then its superclass) and then referred to; a C string likewise, by content; an object is
/// written where the model stores it (``TypedstreamValue/object(_:)``) and referred to elsewhere.
/// Integers take the shortest form (one byte for -110 ... 127, else `81` + 2 bytes, `82` + 4, `87` + 8),
/// except that an unsigned value whose type's top bit is set is its type's bit pattern, as Apple writes
/// it: `81` + 16 bits for an `S` of 0x8000 ... 0xFFFF, `82` + 32 bits for an `I` or `L` of 0x80000000 ...
/// 0xFFFFFFFF (the reader reads both back as those unsigned values); a real that is an integer in the
/// 32-bit range is written as that integer, others as `83` + the real.
/// These are the forms every file of the corpus uses (they are rewritten byte for byte).
struct TypedstreamWriter {
    private let archive: TypedstreamArchive
    private let bigEndian: Bool
    private var output: [UInt8] = []
    private var sharedStrings: [Data: Int] = [:]
    private var nextReference = 0
    private var writtenClasses: [Int: Int] = [:]
    private var writtenObjects: [Int: Int] = [:]
    private var writtenCStrings: [Data: Int] = [:]
    private var parsedEncodings: [String: [TypedstreamTypeEncoding]] = [:]

    /// One object (or the top level) being written: its groups, and the flattened (type, value) pairs of
    /// the group being written.
    private struct Frame {
        var objectIndex: Int?
        var groups: [TypedstreamGroup]
        var nextGroup = 0
        var leaves: [(code: UInt8, value: TypedstreamValue, byteArray: Bool)] = []
        var nextLeaf = 0
    }

    init(_ archive: TypedstreamArchive) {
        self.archive = archive
        bigEndian = archive.byteOrder == .bigEndian
    }

    mutating func write() throws(TypedstreamError) -> Data {
        output.append(TypedstreamTag.streamerVersion)
        output.append(UInt8(TypedstreamTag.littleEndianSignature.count))
        output.append(contentsOf: bigEndian ? TypedstreamTag.bigEndianSignature : TypedstreamTag.littleEndianSignature)
        writeInteger(Int64(archive.systemVersion))
        var frames = [Frame(objectIndex: nil, groups: archive.groups)]
        while let top = frames.last {
            let level = frames.count - 1
            if top.nextLeaf < top.leaves.count {
                let leaf = top.leaves[top.nextLeaf]
                frames[level].nextLeaf += 1
                if let object = try writeLeaf(leaf.code, leaf.value, byteArray: leaf.byteArray) {
                    frames.append(Frame(objectIndex: object, groups: archive.objects[object].groups))
                }
                continue
            }
            if top.nextGroup < top.groups.count {
                let group = top.groups[top.nextGroup]
                frames[level].nextGroup += 1
                writeSharedString(Data(group.encoding.utf8))
                frames[level].leaves = try leaves(of: group, in: top.objectIndex)
                frames[level].nextLeaf = 0
                continue
            }
            if top.objectIndex != nil { output.append(TypedstreamTag.endOfObject) }
            frames.removeLast()
        }
        return Data(output)
    }

    /// The group's values paired with their scalar types, arrays and structs flattened (they store no
    /// bytes of their own); a byte array stays one leaf.
    private mutating func leaves(of group: TypedstreamGroup, in object: Int?) throws(TypedstreamError)
        -> [(code: UInt8, value: TypedstreamValue, byteArray: Bool)] {
        let types: [TypedstreamTypeEncoding]
        if let parsed = parsedEncodings[group.encoding] {
            types = parsed
        } else {
            do {
                types = try TypedstreamTypeEncoding.parseList(Array(group.encoding.utf8))
            } catch {
                throw invalid("type encoding \(group.encoding.debugDescription): \(error.message)", object)
            }
            parsedEncodings[group.encoding] = types
        }
        guard types.count == group.values.count else {
            throw invalid("type encoding \(group.encoding.debugDescription) has \(types.count) types but the group \(group.values.count) values", object)
        }
        var result: [(code: UInt8, value: TypedstreamValue, byteArray: Bool)] = []
        for (type, value) in zip(types, group.values) {
            try flatten(type, value, into: &result, object: object)
        }
        return result
    }

    private func flatten(_ type: TypedstreamTypeEncoding, _ value: TypedstreamValue,
                         into result: inout [(code: UInt8, value: TypedstreamValue, byteArray: Bool)],
                         object: Int?) throws(TypedstreamError) {
        switch (type, value) {
        case (.scalar(let code), _):
            result.append((code, value, false))
        case (.array(let count, .scalar(let code)), .byteArray(let data))
            where code == UInt8(ascii: "c") || code == UInt8(ascii: "C"):
            guard data.count == count else { throw invalid("a byte array of \(data.count) bytes for type [\(count)\(describeByte(code))]", object) }
            result.append((code, value, true))
        case (.array(let count, let element), .array(let elements)):
            guard elements.count == count else { throw invalid("an array of \(elements.count) values for a type of \(count)", object) }
            for element_ in elements { try flatten(element, element_, into: &result, object: object) }
        case (.structure(let fields), .structure(let values)):
            guard fields.count == values.count else { throw invalid("a struct of \(values.count) values for a type of \(fields.count) fields", object) }
            for (field, fieldValue) in zip(fields, values) { try flatten(field, fieldValue, into: &result, object: object) }
        default:
            throw invalid("value \(value) does not match its type", object)
        }
    }

    /// Writes one scalar value; returns the index of an object stored here, whose groups come next.
    private mutating func writeLeaf(_ code: UInt8, _ value: TypedstreamValue, byteArray: Bool) throws(TypedstreamError) -> Int? {
        switch (code, value) {
        case (_, .byteArray(let data)) where byteArray:
            output.append(contentsOf: data)
        case (UInt8(ascii: "c"), .integer(let v)):
            guard let byte = Int8(exactly: v) else { throw invalid("'c' value \(v) does not fit in a byte", nil) }
            output.append(UInt8(bitPattern: byte))
        case (UInt8(ascii: "C"), .unsignedInteger(let v)):
            guard let byte = UInt8(exactly: v) else { throw invalid("'C' value \(v) does not fit in a byte", nil) }
            output.append(byte)
        case (UInt8(ascii: "B"), .bool(let b)):
            output.append(b ? 1 : 0)
        case (UInt8(ascii: "s"), .integer(let v)), (UInt8(ascii: "i"), .integer(let v)), (UInt8(ascii: "l"), .integer(let v)),
             (UInt8(ascii: "q"), .integer(let v)):
            writeInteger(v)
        case (UInt8(ascii: "S"), .unsignedInteger(let v)) where v >= 0x8000 && v <= 0xFFFF:
            // Not widened to 4 bytes: Apple writes an unsigned short's 16 bits.
            output.append(TypedstreamTag.integer2)
            writeFixed(v, width: 2)
        case (UInt8(ascii: "S"), .unsignedInteger(let v)), (UInt8(ascii: "I"), .unsignedInteger(let v)),
             (UInt8(ascii: "L"), .unsignedInteger(let v)), (UInt8(ascii: "Q"), .unsignedInteger(let v)):
            writeUnsignedInteger(v)
        case (UInt8(ascii: "f"), .float(let v)):
            if let integer = Int32(exactly: v), !(v == 0 && v.sign == .minus) {
                writeInteger(Int64(integer))
            } else {
                output.append(TypedstreamTag.real)
                writeFixed(UInt64(v.bitPattern), width: 4)
            }
        case (UInt8(ascii: "d"), .double(let v)):
            if let integer = Int32(exactly: v), !(v == 0 && v.sign == .minus) {
                writeInteger(Int64(integer))
            } else {
                output.append(TypedstreamTag.real)
                writeFixed(v.bitPattern, width: 8)
            }
        case (UInt8(ascii: "*"), .cString(let content)):
            guard let content else { output.append(TypedstreamTag.nilValue); break }
            if let number = writtenCStrings[content] {
                writeReference(number)
            } else {
                output.append(TypedstreamTag.new)
                writtenCStrings[content] = takeReferenceNumber()
                writeSharedString(content)
            }
        case (UInt8(ascii: "%"), .atom(let content)), (UInt8(ascii: ":"), .selector(let content)):
            guard let content else { output.append(TypedstreamTag.nilValue); break }
            writeSharedString(content)
        case (UInt8(ascii: "+"), .bytes(let content)):
            guard let content else { output.append(TypedstreamTag.nilValue); break }
            writeUnsharedString(content)
        case (UInt8(ascii: "#"), .class(let index)):
            try writeClass(index)
        case (UInt8(ascii: "@"), .nilObject):
            output.append(TypedstreamTag.nilValue)
        case (UInt8(ascii: "@"), .objectReference(let index)):
            guard let number = writtenObjects[index] else {
                throw invalid("a reference to object #\(index), which is not stored before it", nil)
            }
            writeReference(number)
        case (UInt8(ascii: "@"), .object(let index)):
            guard archive.objects.indices.contains(index) else {
                throw invalid("object #\(index) is past the \(archive.objects.count) objects", nil)
            }
            guard writtenObjects[index] == nil else { throw invalid("object #\(index) is stored twice", index) }
            output.append(TypedstreamTag.new)
            writtenObjects[index] = takeReferenceNumber()
            let classIndex = archive.objects[index].classIndex
            guard archive.classes.indices.contains(classIndex) else {
                throw invalid("its class #\(classIndex) is past the \(archive.classes.count) classes", index)
            }
            try writeClass(classIndex)
            return index
        case (UInt8(ascii: "!"), .ignored):
            break
        default:
            throw invalid("value \(value) does not match type \(describeByte(code))", nil)
        }
        return nil
    }

    /// A class chain: new classes until one already written (a reference) or the root (nil).
    private mutating func writeClass(_ first: Int?) throws(TypedstreamError) {
        var next = first
        while let index = next {
            guard archive.classes.indices.contains(index) else {
                throw invalid("class #\(index) is past the \(archive.classes.count) classes", nil)
            }
            if let number = writtenClasses[index] {
                writeReference(number)
                return
            }
            let entry = archive.classes[index]
            output.append(TypedstreamTag.new)
            writtenClasses[index] = takeReferenceNumber()
            writeSharedString(Data(entry.name.utf8))
            writeInteger(Int64(entry.version))
            next = entry.superclass
        }
        output.append(TypedstreamTag.nilValue)
    }

    private mutating func takeReferenceNumber() -> Int {
        defer { nextReference += 1 }
        return nextReference
    }

    private mutating func writeReference(_ number: Int) {
        writeInteger(Int64(number) + TypedstreamTag.firstReference)
    }

    private mutating func writeSharedString(_ content: Data) {
        if let number = sharedStrings[content] {
            writeReference(number)
            return
        }
        sharedStrings[content] = sharedStrings.count
        output.append(TypedstreamTag.new)
        writeUnsharedString(content)
    }

    private mutating func writeUnsharedString(_ content: Data) {
        writeUnsignedInteger(UInt64(content.count))
        output.append(contentsOf: content)
    }

    private mutating func writeInteger(_ value: Int64) {
        switch value {
        case TypedstreamTag.firstReference ... 127:
            output.append(UInt8(bitPattern: Int8(value)))
        case Int64(Int16.min) ... Int64(Int16.max):
            output.append(TypedstreamTag.integer2)
            writeFixed(UInt64(UInt16(bitPattern: Int16(value))), width: 2)
        case Int64(Int32.min) ... Int64(Int32.max):
            output.append(TypedstreamTag.integer4)
            writeFixed(UInt64(UInt32(bitPattern: Int32(value))), width: 4)
        default:
            output.append(TypedstreamTag.integer8)
            writeFixed(UInt64(bitPattern: value), width: 8)
        }
    }

    private mutating func writeUnsignedInteger(_ value: UInt64) {
        if value <= UInt64(Int32.max) {
            writeInteger(Int64(value))
        } else if value <= UInt64(UInt32.max) {
            output.append(TypedstreamTag.integer4)
            writeFixed(value, width: 4)
        } else {
            output.append(TypedstreamTag.integer8)
            writeFixed(value, width: 8)
        }
    }

    private mutating func writeFixed(_ value: UInt64, width: Int) {
        for i in 0 ..< width {
            let shift = 8 * (bigEndian ? width - 1 - i : i)
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private func invalid(_ message: String, _ object: Int?) -> TypedstreamError {
        TypedstreamError(.invalidArchive, message, objectIndex: object, className: object.flatMap { archive.className(ofObjectAt: $0) })
    }
}

extension TypedstreamArchive {
    /// The archive as typedstream bytes, in ``byteOrder``, as Apple's `NSArchiver` lays them out.
    ///
    /// The corresponding Foundation API is `NSArchiver.archivedData(withRootObject:)` (macOS only). Writing
    /// an archive read by ``init(data:limits:)`` from Apple's output gives the same bytes.
    ///
    /// - Returns: the encoded bytes.
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` when the model is inconsistent: a group whose
    ///   encoding does not parse or does not match its values, an index past ``classes`` or ``objects``, an
    ///   object stored twice, or a reference to an object not stored before it.
    public func encodedData() throws(TypedstreamError) -> Data {
        var writer = TypedstreamWriter(self)
        return try writer.write()
    }
}
