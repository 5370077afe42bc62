#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// ArchiveObjectDecoder reading values whose type is one of several (decodeValue(ofAnyOf:)), numbers of
// any width (ArchivedNumber), and the stored class name.
extension ArchiveObjectDecoder {
    func storedClassName(forKey key: String) throws -> String? {
        try session.checkActive()
        let found: Int?
        if let fields { found = try stored(fields, key) } else { found = element }
        guard let value = found else { return nil }
        if let ref = try session.uid(value, key: pathKey(key)), ref == 0 { return nil }
        let (n, uid) = try session.target(of: value, key: pathKey(key), expected: "a value")
        switch session.storage.kind(n) {
        case .dictionary:
            guard let uid, let (_, archivedClass) = try session.objectDictionary(uid, key: pathKey(key)) else { return nil }
            return archivedClass.name
        case .array, .set, .uid:
            return nil
        case .scalar:
            switch try scalarValue(n, key: key) {
            case .string?: return FoundationClassCatalogue.string.name
            case .data?: return FoundationClassCatalogue.data.name
            case .date?: return FoundationClassCatalogue.date.name
            case .integer?, .real?, .float?, .bool?: return FoundationClassCatalogue.number.name
            default: return nil
            }
        }
    }

    func decodeNumber(forKey key: String) throws -> ArchivedNumber {
        let (n, uid) = try targetObject(forKey: key, expected: "a number")
        switch try scalarValue(n, key: key) {
        case .bool(let b)?: return .bool(b)
        case .integer(let i)?: return .integer(i)
        case .float(let f)?: return .float(f)
        case .real(let d)?: return .double(d)
        default: throw fail(.typeMismatch, "expected a number, found \(found(n, uid: uid))", key)
        }
    }

    func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> any ArchiveValue {
        try heterogeneousValue(ofAnyOf: types, forKey: key) { [session] type in
            ArchiveAllowList.acceptedNames(of: type, registry: session.registry, moves: session.moduleMoves,
                                           names: session.names(of:))
        }
    }

    func decodeArray(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> [any ArchiveValue] {
        let (uid, dict, cls) = try collection(key, names: Self.arrayClasses, expected: "an array")
        let refs = try elements(dict, uid, cls, key: key)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls)
        return try withEntered(uid, cls, key: key) {
            var result: [any ArchiveValue] = []
            result.reserveCapacity(refs.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for (i, ref) in refs.enumerated() {
                session.push(.index(i))
                defer { session.pop() }
                decoder.element = ref
                result.append(try decoder.decodeValue(ofAnyOf: types, forKey: ""))
            }
            return result
        }
    }

    func decodeDictionary<K: ArchiveValue & Hashable>(keyType: K.Type, valuesOfAnyOf types: [any ArchiveValue.Type],
                                                      forKey key: String) throws -> [K: any ArchiveValue] {
        let (uid, dict, cls) = try collection(key, names: Self.dictionaryClasses, expected: "a dictionary of \(K.self)")
        let keys = try elements(dict, uid, cls, key: key, member: Catalogue.dictionaryKeysKey)
        let values = try elements(dict, uid, cls, key: key, member: Catalogue.elementArrayKey)
        guard keys.count == values.count else {
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.dictionaryKeysKey) has \(keys.count) entries but \(Catalogue.elementArrayKey) has \(values.count)",
                       key, uid: uid, className: cls)
        }
        try session.countElements(keys.count, key: pathKey(key), uid: uid, className: cls)
        return try withEntered(uid, cls, key: key) {
            var result = [K: any ArchiveValue](minimumCapacity: keys.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for i in keys.indices {
                let k: K = try decodeElement(keys[i], at: .dictionaryKey(i), with: decoder)
                let v = try {
                    session.push(.dictionaryValue(i, keyRef: keys[i]))
                    defer { session.pop() }
                    decoder.element = values[i]
                    return try decoder.decodeValue(ofAnyOf: types, forKey: "")
                }()
                if result.updateValue(v, forKey: k) != nil, let kept = result.index(forKey: k) {
                    try checkSameScalars(result[kept].key, k, at: .dictionaryKey(i), uid: uid, className: cls)
                }
            }
            return result
        }
    }
}
