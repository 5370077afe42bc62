import Foundation
@testable import KeyedArchive

/// A ``TypedstreamArchive`` as pytypedstream's low-level event stream (the forms
/// `Tests/TypedstreamOracle/pytypedstream_oracle.py` prints), one compact JSON string per event, so that the
/// two can be compared event by event. Reference numbers are counted as the format counts them (objects,
/// classes and C strings share one numbering, in stream order). Arrays and structs are compared by their
/// count (their group's encoding event already carries the full type).
enum TypedstreamEvents {
    /// An oracle event in the compared form.
    static func normalized(_ event: Any) -> String {
        guard var array = event as? [Any], let tag = array.first as? String else { return "\(event)" }
        if tag == "array", array.count == 3 { array = ["array", array[2]] }
        if tag == "struct", array.count == 3, let fields = array[2] as? [Any] { array = ["struct", fields.count] }
        return json(array)
    }

    static func json(_ array: [Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: array, options: [.sortedKeys]) else { return "\(array)" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The events of the whole archive.
    static func events(of archive: TypedstreamArchive) -> [String] {
        var walker = Walker(archive: archive)
        for group in archive.groups { walker.group(group) }
        return walker.events
    }

    private struct Walker {
        let archive: TypedstreamArchive
        var events: [String] = []
        var next = 0
        var classNumbers: [Int: Int] = [:]
        var objectNumbers: [Int: Int] = [:]
        var cStrings: [Data: Int] = [:]

        mutating func emit(_ items: Any...) { events.append(TypedstreamEvents.json(items)) }

        mutating func group(_ group: TypedstreamGroup) {
            emit("group", TypedstreamTypeEncoding.split(group.encoding))
            for value in group.values { self.value(value) }
            emit("endgroup")
        }

        mutating func value(_ value: TypedstreamValue) {
            switch value {
            case .integer(let v): emit("int", String(v))
            case .unsignedInteger(let v): emit("int", String(v))
            case .bool(let b): emit("bool", b)
            case .float(let f): emit("real", hex(Double(f)))
            case .double(let d): emit("real", hex(d))
            case .cString(nil), .bytes(nil), .nilObject, .class(nil), .ignored: emit("nil")
            case .cString(let content?):
                if let number = cStrings[content] {
                    emit("ref", "C string", number)
                } else {
                    cStrings[content] = take()
                    emit("cstring", content.base64EncodedString())
                }
            case .atom(let content): emit("atom", content.map { $0.base64EncodedString() } ?? NSNull())
            case .selector(let content): emit("selector", content.map { $0.base64EncodedString() } ?? NSNull())
            case .bytes(let content?): emit("bytes", content.base64EncodedString())
            case .class(let index?): classChain(index)
            case .object(let index):
                objectNumbers[index] = take()
                emit("object")
                classChain(archive.objects[index].classIndex)
                for group in archive.objects[index].groups { self.group(group) }
                emit("endobject")
            case .objectReference(let index): emit("ref", "object", objectNumbers[index] ?? -1)
            case .array(let elements):
                emit("array", elements.count)
                for element in elements { self.value(element) }
                emit("endarray")
            case .byteArray(let data): emit("bytearray", "c", data.base64EncodedString())
            case .structure(let fields):
                emit("struct", fields.count)
                for field in fields { self.value(field) }
                emit("endstruct")
            }
        }

        mutating func classChain(_ first: Int) {
            var current: Int? = first
            while let index = current {
                if let number = classNumbers[index] {
                    emit("ref", "class", number)
                    return
                }
                classNumbers[index] = take()
                emit("class", archive.classes[index].name, archive.classes[index].version)
                current = archive.classes[index].superclass
            }
            emit("nil")
        }

        mutating func take() -> Int {
            defer { next += 1 }
            return next
        }

        func hex(_ d: Double) -> String {
            let s = String(d.bitPattern, radix: 16)
            return String(repeating: "0", count: 16 - s.count) + s
        }
    }
}
