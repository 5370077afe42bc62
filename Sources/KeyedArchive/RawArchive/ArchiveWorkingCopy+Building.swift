#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchiveWorkingCopy {
    /// The deepest nesting of arrays, sets and dictionaries a value to archive may have (CoreFoundation's
    /// property-list depth limit).
    static let maximumValueDepth = 512

    /// Archives `value` as new objects the way Apple's `NSKeyedArchiver` stores it and returns the reference
    /// to store: a string, number or data an inline entry; a date an NSDate; an array an NSArray, a set an
    /// NSSet, a dictionary an NSDictionary (keys first, then values, as Apple encodes them); a UID a reference
    /// to an object already in the archive.
    ///
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidReference`` for a UID outside the
    ///   archive or naming a class description; ``KeyedArchiveError/Code/limitExceeded`` for a value nested
    ///   deeper than ``maximumValueDepth``; each with `keyPath` (and the element's path inside the value).
    mutating func archivedReference(for value: PropertyListValue, keyPath: ArchiveKeyPath, depth: Int = 0) throws -> PropertyListValue {
        guard depth <= Self.maximumValueDepth else {
            throw KeyedArchiveError(.limitExceeded, "the value is nested deeper than \(Self.maximumValueDepth) levels",
                                    keyPath: keyPath.description)
        }
        func add(_ stored: PropertyListValue) -> PropertyListValue {
            objects.append(stored)
            return .uid(UID(UInt64(objects.count - 1)))
        }
        func instance(_ className: String, _ fields: [(String, PropertyListValue)]) -> PropertyListValue {
            let chain = FoundationClassCatalogue.standard.entry(named: className)?.chain(for: className) ?? [className, "NSObject"]
            let classIndex = classDescription(named: className, chain: chain)
            return add(.dictionary(PropertyListDictionary(fields + [("$class", .uid(UID(UInt64(classIndex))))])))
        }
        func elements(_ items: PropertyListArray) throws -> PropertyListValue {
            var refs: [PropertyListValue] = []
            refs.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                refs.append(try archivedReference(for: item, keyPath: ArchiveKeyPath(components: keyPath.components + [String(i)]),
                                                  depth: depth + 1))
            }
            return .array(refs)
        }
        switch value {
        case .uid(let uid):
            guard uid.value < UInt64(objects.count) else {
                throw KeyedArchiveError(.invalidReference, "UID \(uid.value) is outside the archive's \(objects.count) objects",
                                        keyPath: keyPath.description)
            }
            if uid.value > 0, case .dictionary(let d) = objects[Int(uid.value)], d["$classname"] != nil, d["$class"] == nil {
                throw KeyedArchiveError(.invalidReference, "UID \(uid.value) is a class description, not an object",
                                        keyPath: keyPath.description, objectUID: uid.value)
            }
            return value
        case .string, .integer, .real, .float, .bool, .data:
            return add(value)
        case .date(let date):
            return instance("NSDate", [("NS.time", .real(date.timeIntervalSinceReferenceDate))])
        case .array(let items):
            return instance("NSArray", [(FoundationClassCatalogue.elementArrayKey, try elements(items))])
        case .set(let items):
            return instance("NSSet", [(FoundationClassCatalogue.elementArrayKey, try elements(items))])
        case .dictionary(let d):
            // Apple's NSDictionary encodes its keys, then its values: each key's object comes before every value's.
            var keys: [PropertyListValue] = []
            keys.reserveCapacity(d.count)
            for key in d.keys { keys.append(add(.string(key))) }
            var values: [PropertyListValue] = []
            values.reserveCapacity(d.count)
            for (key, item) in zip(d.keys, d.values) {
                values.append(try archivedReference(for: item, keyPath: ArchiveKeyPath(components: keyPath.components + [key]),
                                                    depth: depth + 1))
            }
            return instance("NSDictionary", [(FoundationClassCatalogue.standard.dictionaryKeysKey, .array(keys)),
                                             (FoundationClassCatalogue.elementArrayKey, .array(values))])
        }
    }
}
