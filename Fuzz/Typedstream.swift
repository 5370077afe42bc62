// libFuzzer target: the typedstream (NSArchiver) reader, writer, Foundation values and the coder pair.
//
// Properties checked:
// - Reading ends in a TypedstreamArchive or a thrown TypedstreamError; an archive that was read is written
//   without error, the written bytes read back to an archive with the same tables, and writing that again
//   gives the same bytes (the writer is deterministic and loses nothing it read).
// - Making Foundation values of every top-level value ends in values or a TypedstreamError.
// - With keepsUnknownObjects, each top-level value (objects of other classes kept as ArchivedTypedstreamObject)
//   is written by TypedstreamArchiver, or refused with limitExceeded (or invalidArchive when one class name
//   comes at two versions or superclasses, in the archive or beside a Foundation class the archiver writes: it
//   stores each class once); what it writes reads back to one value that
//   is written again to the same bytes (or, where a set or a dictionary with a key that is not a string changed
//   order, to bytes of an equal value, or with kept objects to the same objects: classes, versions and
//   group encodings, in another order), and equals the first when it holds no kept object
//   (and no NaN). A root kept object that is the archive's only top-level value is written as the raw model
//   writes the archive.
// - The root object read as FuzzRecord (a small TypedstreamCodable class that reads its version, a string, an
//   integer, a real, a Foundation value and a child record) is archived by TypedstreamArchiver, reads back
//   equal (NaN aside), and what it archives to again reads back equal.
// Any other outcome is a finding.
//
// Build and run with Scripts/fuzz.sh typedstream SECONDS.

import Foundation
import KeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedstream(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    var limits = KeyedUnarchiver.Limits()
    limits.maximumDepth = 256
    limits.maximumObjectCount = 1 << 16
    let archive: TypedstreamArchive
    do {
        archive = try TypedstreamArchive(data: data, limits: limits)
    } catch {
        return 0
    }
    let written: Data
    do {
        written = try archive.encodedData()
    } catch {
        fuzzViolation("the writer rejects an archive the reader made: \(error)")
    }
    let reread: TypedstreamArchive
    do {
        reread = try TypedstreamArchive(data: written, limits: limits)
    } catch {
        fuzzViolation("the reader rejects the writer's output: \(error)")
    }
    guard reread.classes == archive.classes, reread.objects.count == archive.objects.count,
          reread.groups.count == archive.groups.count, reread.byteOrder == archive.byteOrder,
          reread.systemVersion == archive.systemVersion
    else {
        fuzzViolation("read -> write -> read changed the tables (\(archive.objects.count) objects, \(archive.classes.count) classes)")
    }
    do {
        guard try reread.encodedData() == written else { fuzzViolation("the writer is not deterministic") }
    } catch {
        fuzzViolation("the writer rejects its own re-read output: \(error)")
    }
    var unarchiver = TypedstreamUnarchiver()
    unarchiver.limits = limits
    do {
        _ = try unarchiver.foundationValues(of: archive.groups.flatMap(\.values), in: archive)
    } catch {
        // A TypedstreamError (typed throws): a class with no Foundation value, a cycle, a limit.
    }
    checkKeptValuesRoundTrip(archive, rawBytes: written, limits: limits)
    checkRecordRoundTrip(data, archive: archive, limits: limits)
    return 0
}

/// Reads every top-level value with `keepsUnknownObjects` and requires each (the first 8) to be written and read
/// back as the header comment says.
func checkKeptValuesRoundTrip(_ archive: TypedstreamArchive, rawBytes: Data, limits: KeyedUnarchiver.Limits) {
    var keeping = TypedstreamUnarchiver()
    keeping.limits = limits
    keeping.keepsUnknownObjects = true
    var strict = TypedstreamUnarchiver()
    strict.limits = limits
    let topLevel = archive.groups.flatMap(\.values)
    let values: [FoundationValue]
    do {
        values = try keeping.foundationValues(of: topLevel, in: archive)
    } catch {
        return  // a Foundation class not stored as it writes itself, a cycle, a limit
    }
    guard values.count == topLevel.count else {
        fuzzViolation("\(topLevel.count) top-level values read as \(values.count) Foundation values")
    }
    var archiver = TypedstreamArchiver()
    archiver.byteOrder = archive.byteOrder
    archiver.maximumDepth = 4 * limits.maximumDepth
    for (index, value) in values.prefix(8).enumerated() {
        let written: Data
        do {
            written = try archiver.archivedData(withRootValue: value)
        } catch where error.code == .limitExceeded {
            continue  // the writer counts arrays and structs inside kept objects as levels too
        } catch where error.code == .invalidArchive && error.message.contains("but was written before") {
            continue  // one class name at two versions or superclasses: the archiver stores a class once
        } catch {
            fuzzViolation("top-level value \(index) read with keepsUnknownObjects is not written: \(error)")
        }
        let again: FoundationValue
        do {
            again = try keeping.foundationValue(from: written)
        } catch {
            fuzzViolation("top-level value \(index): the archiver's output does not read back: \(error)")
        }
        do {
            let rewritten = try archiver.archivedData(withRootValue: again)
            // Sets and dictionaries with a key that is not a string are written in their stored order, which
            // reading may change: then the bytes may differ, but not the values or the length.
            if rewritten != written {
                if let first = try? strict.foundationValue(from: written), let second = try? strict.foundationValue(from: rewritten) {
                    guard first == second || first != first else {
                        fuzzViolation("top-level value \(index): write -> read -> write changed the value")
                    }
                } else if objectShapes(of: written, limits: limits) != objectShapes(of: rewritten, limits: limits) {
                    fuzzViolation("top-level value \(index): write -> read -> write changed the objects written (\(written.count) -> \(rewritten.count) bytes)")
                }
            }
        } catch {
            fuzzViolation("top-level value \(index): the value read back is not written: \(error)")
        }
        // Read without keeping, the output holds no kept object: the values must be equal.
        if (try? strict.foundationValue(from: written)) != nil, value == value, again != value {
            fuzzViolation("top-level value \(index): read -> write -> read changed the value")
        }
        // A class name stored twice (a crafted file: Apple's writer stores a class once) is written once.
        if index == 0, topLevel.count == 1, archive.groups.first?.encoding == "@", archive.systemVersion == 1000,
           Set(archive.classes.map(\.name)).count == archive.classes.count,
           let kept = value.catalogued(as: ArchivedTypedstreamObject.self), kept.objectIndex == 0, written != rawBytes {
            fuzzViolation("the only root, a kept object, is not written as the raw model writes the archive")
        }
    }
}

/// What writing set members or dictionary entries in another order leaves unchanged: each object's class,
/// version and group encodings, sorted (the bytes and their length change with the numbering of objects,
/// classes and strings).
func objectShapes(of data: Data, limits: KeyedUnarchiver.Limits) -> [String]? {
    guard let archive = try? TypedstreamArchive(data: data, limits: limits) else { return nil }
    return archive.objects.map { object in
        guard archive.classes.indices.contains(object.classIndex) else { return "?" }
        let objectClass = archive.classes[object.classIndex]
        return "\(objectClass.name) v\(objectClass.version) \(object.groups.map(\.encoding))"
    }.sorted()
}

/// A small class read from the fuzzed input through TypedstreamDecoder and written through TypedstreamEncoder.
struct FuzzRecord: TypedstreamCodable, Equatable {
    static let typedstreamClassName = "FuzzRecord"
    static let typedstreamClassVersion = 2

    var title: String?
    var number: Int
    var real: Double
    var value: FoundationValue
    var child: [FuzzRecord]

    init(from decoder: TypedstreamDecoder) throws {
        let version = decoder.version(forClassName: decoder.className) ?? 0
        title = try decoder.decodeString()
        number = try decoder.decodeInteger()
        real = version >= 1 ? try decoder.decodeDouble() : 0
        value = version >= 1 ? try decoder.decodeFoundationValue() : .null
        child = version >= 2 ? try decoder.decodeObject(of: FuzzRecord.self).map { [$0] } ?? [] : []
    }

    func encode(to encoder: TypedstreamEncoder) throws {
        try encoder.encodeString(title)
        try encoder.encodeInteger(number, ofObjCType: "q")
        try encoder.encodeDouble(real)
        try encoder.encodeFoundationValue(value)
        try encoder.encodeObject(child.first)
    }

    /// Whether the record equals itself: false when a real or a Foundation value in it is NaN.
    var isReflexive: Bool { real == real && value == value && child.allSatisfy(\.isReflexive) }
}

/// Reads the root object, whatever its class is named, as a FuzzRecord and requires it to round-trip.
func checkRecordRoundTrip(_ data: Data, archive: TypedstreamArchive, limits: KeyedUnarchiver.Limits) {
    guard let rootClass = archive.className(ofObjectAt: 0) else { return }
    var unarchiver = TypedstreamUnarchiver()
    unarchiver.limits = limits
    unarchiver.setClass(FuzzRecord.self, forClassName: rootClass)
    let record: FuzzRecord
    do {
        record = try unarchiver.decode(FuzzRecord.self, from: data)
    } catch {
        return  // not stored as FuzzRecord reads itself
    }
    var archiver = TypedstreamArchiver()
    archiver.maximumDepth = 4 * limits.maximumDepth
    let written: Data
    do {
        written = try archiver.archivedData(withRootObject: record)
    } catch where error.code == .limitExceeded {
        return
    } catch {
        fuzzViolation("a FuzzRecord read is not written: \(error)")
    }
    let back: FuzzRecord
    do {
        back = try TypedstreamUnarchiver().decode(FuzzRecord.self, from: written)
    } catch {
        fuzzViolation("the FuzzRecord written does not read back: \(error)")
    }
    if record.isReflexive, back != record { fuzzViolation("FuzzRecord read -> write -> read changed it") }
    do {
        // Bytes as above: a set or a dictionary with a key that is not a string may be written in another order.
        let rewritten = try archiver.archivedData(withRootObject: back)
        if rewritten != written, back.isReflexive, try TypedstreamUnarchiver().decode(FuzzRecord.self, from: rewritten) != back {
            fuzzViolation("FuzzRecord write -> read -> write changed it")
        }
    } catch {
        fuzzViolation("the FuzzRecord read back is not written: \(error)")
    }
}
