#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Apple's Swift overlay stores a Codable value inside an archived object as a property-list subtree:
// `NSKeyedArchiver.encodeEncodable(_:forKey:)` runs `PropertyListEncoder().encodeToTopLevelContainer(value)`
// and `encode(_:forKey:)`s the resulting NSDictionary / NSArray / NSNumber / NSString / NSData / NSDate;
// `NSKeyedUnarchiver.decodeDecodable(_:forKey:)` decodes an object of one of those classes (nil when absent)
// and runs `PropertyListDecoder().decode(_:fromTopLevel:)` on it. These do the same with the same
// encoder and decoder, so such fields read both ways between this package and Apple platforms.

extension ArchiveEncoder {
    /// Writes a Codable value as a property-list subtree (NSDictionary, NSArray, NSString, NSNumber, NSData,
    /// NSDate), as `PropertyListEncoder` represents it.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.encodeEncodable(_:forKey:)` (Apple platforms).
    /// Unlike ``ArchivableCodable``, nothing is an object with a class: a nested value is a dictionary, a
    /// `Set` an array, `nil` the string `"$null"`, a `UUID` a string, exactly as `PropertyListEncoder` writes them.
    /// A top-level number or `Bool` is its own NSNumber object (as `encode(NSNumber, forKey:)` writes it).
    /// - Throws: `EncodingError` from `PropertyListEncoder`, or ``KeyedArchiveError``.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws {
        // PropertyListEncoder rejects top-level fragments (a number, a string); Apple's overlay calls its
        // internal encodeToTopLevelContainer, which accepts them. Wrapping in a one-element array and taking
        // the element out gives the same subtree.
        let data = try PropertyListEncoder().encode([value])
        let tree = try PropertyListValue(propertyListData: data)
        guard case .array(let items) = tree, items.count == 1 else {
            throw KeyedArchiveError(.invalidValue, "PropertyListEncoder gave no value for \(T.self)", keyPath: key)
        }
        // `encode(_:forKey:)` of an NSNumber writes it as an object referenced by UID, not inline.
        switch try FoundationValue(propertyListSubtree: items[0], keyPath: key) {
        case .integer(let i):
            if let s = i.int64Value { try encodeIntegerObject(s, forKey: key) } else { try encodeIntegerObject(i.uint64Value ?? 0, forKey: key) }
        case .real(let d): try encodeRealObject(d, forKey: key)
        case .bool(let b): try encodeBoolObject(b, forKey: key)
        case let value: try encode(value, forKey: key)
        }
    }
}

extension ArchiveDecoder {
    /// Reads a Codable value stored as a property-list subtree (by ``ArchiveEncoder/encodeEncodable(_:forKey:)``
    /// or Apple's overlay), or nil when the key is absent or holds `$null`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.decodeDecodable(_:forKey:)` (Apple platforms).
    /// Only the property-list classes are accepted (NSDictionary, NSArray, NSString, NSNumber, NSData,
    /// NSDate), as Apple's overlay accepts. Any depth the unarchiver's limits allow is read: the subtree is
    /// converted without recursion, and `PropertyListDecoder` (with `T.init(from:)`) runs on a stack that
    /// holds every level of it, a thread of its own when the caller's stack is short (see ``KeyedUnarchiver``'s
    /// "Depth").
    /// - Throws: `DecodingError` from `PropertyListDecoder`, or ``KeyedArchiveError`` (a class outside the
    ///   property-list classes is ``KeyedArchiveError/Code/classNotAllowed`` naming its place, `settings[2].name`;
    ///   a dictionary holding two keys that NSDictionary keeps apart but Swift's `String ==` merges, such as
    ///   "\u{E9}" and "e\u{301}", is ``KeyedArchiveError/Code/equivalentKeys`` naming both).
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        if try decodeNil(forKey: key) { return nil }
        let value = try decodeFoundationValue(forKey: key)
        let (subtree, levels) = try value.propertyListSubtree(keyPath: keyPath.isEmpty ? key : keyPath + "." + key)
        let data: Data
        do {
            data = try PropertyListValue.array([subtree]).propertyListData(format: .binary)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.dataCorrupted, "the value under \(key) is not a property list: \(error.message)",
                                    keyPath: key, underlying: error)
        }
        // PropertyListDecoder and `T.init(from:)` recurse once per level of the subtree (one more for the
        // wrapping array): on a stack that holds them all, as the unarchiver's own levels are.
        let decoded = try withStack(forLevels: levels + 1) { try PropertyListDecoder().decode([T].self, from: data) }
        guard let first = decoded.first else {
            throw KeyedArchiveError(.dataCorrupted, "PropertyListDecoder gave no value for \(T.self)", keyPath: key)
        }
        return first
    }

    /// Runs `body`, code outside the unarchiver that recurses up to `levels` deep: through the session's
    /// depth machinery (here while the stack holds them, else on a thread sized for them) for the
    /// unarchiver's decoder; for another decoder, here up to `levelsEveryStackHolds` levels, else on such a thread.
    private func withStack<R>(forLevels levels: Int, _ body: () throws -> R) throws -> R {
        if let reader = objectReading { return try reader.withStack(forLevels: levels, body) }
        if levels <= levelsEveryStackHolds { return try body() }
        return try runOnThread(levels: levels + 4, bytesPerLevel: KeyedUnarchiver.defaultStackBytesPerLevel, body)
    }
}

extension FoundationValue {
    /// The Foundation value of a property list that `PropertyListEncoder` wrote.
    init(propertyListSubtree value: PropertyListValue, keyPath: String) throws {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .float(let f): self = .real(Double(f))
        case .bool(let b): self = .bool(b)
        case .date(let d): self = .date(d)
        case .data(let d): self = .data(d)
        case .array(let a): self = .array(try a.map { try FoundationValue(propertyListSubtree: $0, keyPath: keyPath) })
        case .dictionary(let d):
            var result: [FoundationValue: FoundationValue] = [:]
            for (k, v) in d { result[.string(k)] = try FoundationValue(propertyListSubtree: v, keyPath: keyPath) }
            self = .dictionary(result)
        case .set, .uid:
            throw KeyedArchiveError(.invalidValue, "PropertyListEncoder wrote a \(value.kindName)", keyPath: keyPath)
        }
    }

    /// A collection of ``propertyListSubtree(keyPath:)`` being converted: its elements (a dictionary's values,
    /// in key order), its keys, and the elements converted so far.
    private struct SubtreeFrame {
        let elements: [FoundationValue]
        let keys: [String]?
        var converted: [PropertyListValue]
    }

    /// The property list of a value made only of the property-list classes, and how many collections deep
    /// it goes: converted with an explicit stack, so any depth (the subtree comes from untrusted input).
    ///
    /// - Throws: ``KeyedArchiveError/Code/classNotAllowed`` for any other class and
    ///   ``KeyedArchiveError/Code/typeMismatch`` for a dictionary key that is not a string, and
    ///   ``KeyedArchiveError/Code/equivalentKeys`` for two keys that only canonical equivalence makes equal,
    ///   naming the path below `keyPath` (`settings[2].name`).
    func propertyListSubtree(keyPath: String) throws -> (value: PropertyListValue, levels: Int) {
        var stack: [SubtreeFrame] = []
        var levels = 0
        var next = self
        while true {
            var done: PropertyListValue
            switch next {
            case .string(let s): done = .string(s)
            case .integer(let i): done = .integer(i)
            case .real(let d): done = .real(d)
            case .bool(let b): done = .bool(b)
            case .date(let d): done = .date(d)
            case .data(let d): done = .data(d)
            case .array(let a):
                levels = max(levels, stack.count + 1)
                guard let first = a.first else {
                    done = .array([])
                    break
                }
                stack.append(SubtreeFrame(elements: a.elements, keys: nil, converted: []))
                stack[stack.count - 1].converted.reserveCapacity(a.count)
                next = first
                continue
            case .dictionary(let d):
                levels = max(levels, stack.count + 1)
                var pairs: [(String, FoundationValue)] = []
                pairs.reserveCapacity(d.count)
                for (k, v) in d {
                    guard case .string(let name) = k else {
                        throw KeyedArchiveError(.typeMismatch, "a property-list dictionary key must be a string",
                                                keyPath: Self.subtreePath(keyPath, stack))
                    }
                    pairs.append((name, v))
                }
                guard !pairs.isEmpty else {
                    done = .dictionary(PropertyListDictionary())
                    break
                }
                pairs.sort { $0.0 < $1.0 }
                // Canonically equivalent keys sort next to each other; PropertyListDecoder's dictionaries would
                // keep one of them (Swift's `String ==`), where NSDictionary keeps both.
                for i in pairs.indices.dropFirst() where !(pairs[i - 1].0 < pairs[i].0) {
                    throw KeyedArchiveError(.equivalentKeys, pairs[i - 1].0.equivalentKeysMessage(pairs[i].0, in: "dictionary"),
                                            keyPath: Self.subtreePath(keyPath, stack))
                }
                stack.append(SubtreeFrame(elements: pairs.map(\.1), keys: pairs.map(\.0), converted: []))
                stack[stack.count - 1].converted.reserveCapacity(pairs.count)
                next = pairs[0].1
                continue
            default:   // NSNull, NSUUID, NSURL, NSSet, NSOrderedSet and the catalogue's value classes
                throw KeyedArchiveError(.classNotAllowed,
                                        "decodeDecodable reads only property-list classes (NSDictionary, NSArray, NSString, NSNumber, "
                                            + "NSData, NSDate), as Apple's overlay does", keyPath: Self.subtreePath(keyPath, stack))
            }
            // Hand the converted value to the collection it belongs to; close the collections it completes.
            while let top = stack.indices.last {
                stack[top].converted.append(done)
                let count = stack[top].converted.count
                if count < stack[top].elements.count {
                    next = stack[top].elements[count]
                    break
                }
                let frame = stack.removeLast()
                if let keys = frame.keys {
                    done = .dictionary(PropertyListDictionary(keys: keys, values: frame.converted))
                } else {
                    done = .array(PropertyListArray(frame.converted))
                }
            }
            if stack.isEmpty { return (done, levels) }
        }
    }

    /// `keyPath` followed by the place of the value being converted in each open collection (`[2]`, `.name`).
    private static func subtreePath(_ keyPath: String, _ stack: [SubtreeFrame]) -> String {
        var path = keyPath
        for frame in stack {
            let i = frame.converted.count
            if let keys = frame.keys { path += "." + keys[i] } else { path += "[\(i)]" }
        }
        return path
    }
}
