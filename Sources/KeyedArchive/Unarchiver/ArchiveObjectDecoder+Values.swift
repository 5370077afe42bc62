#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// ArchiveObjectDecoder reading values: numbers, strings, data, dates, UUIDs and URLs, inline or as their
// Foundation objects.
extension ArchiveObjectDecoder {
    // MARK: Numbers

    func decode(_ type: Bool.Type, forKey key: String) throws -> Bool {
        let (n, uid) = try targetObject(forKey: key, expected: "Bool")
        switch try scalarValue(n, key: key) {
        case .bool(let b)?: return b
        case .integer(let i)?: return i != 0
        default: throw fail(.typeMismatch, "expected Bool, found \(found(n, uid: uid))", key)
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
        // This generic requirement is reached through an existential and runs unspecialized: the common
        // widths take a path that touches no generic type but T itself (an Optional<T> would make the
        // runtime look up its metadata on every call), the rest the general conversion.
        if T.self == Int.self {
            if let v = try scalarInt64(forKey: key, expected: "Int"), let i = Int(exactly: v) { return unsafeBitCast(i, to: T.self) }
        } else if T.self == Int64.self {
            if let v = try scalarInt64(forKey: key, expected: "Int64") { return unsafeBitCast(v, to: T.self) }
        }
        return try convertedInteger(T.self, forKey: key)
    }

    /// The integer stored under `key` when it is a scalar integer that fits in Int64; nil sends the caller
    /// to the general conversion (which reports what is wrong).
    @inline(__always)
    func scalarInt64(forKey key: String, expected: StaticString) throws -> Int64? {
        let (n, _) = try targetObject(forKey: key, expected: "\(expected)")
        if case .integer(let i)? = try scalarValue(n, key: key) { return i.int64Value }
        return nil
    }

    @inline(never)
    func convertedInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
        let (n, uid) = try targetObject(forKey: key, expected: "\(T.self)")
        guard let value = try scalarValue(n, key: key) else {
            throw fail(.typeMismatch, "expected \(T.self), found \(found(n, uid: uid))", key)
        }
        switch value {
        case .integer(let i):
            guard let result = i.exactly(T.self) else {
                throw fail(.numberOutOfRange, "\(i) does not fit in \(T.self)", key)
            }
            return result
        case .bool(let b):
            return b ? 1 : 0
        case .real(let d):
            return try integer(fromReal: d, T.self, key: key)
        case .float(let f):
            return try integer(fromReal: Double(f), T.self, key: key)
        default:
            throw fail(.typeMismatch, "expected \(T.self), found \(found(n, uid: uid))", key)
        }
    }

    func integer<T: FixedWidthInteger>(fromReal d: Double, _ type: T.Type, key: String) throws -> T {
        guard d.isFinite, d.rounded(.towardZero) == d else {
            throw fail(.typeMismatch, "expected \(T.self), found the non-integral real \(d)", key)
        }
        guard let result = T(exactly: d) else {
            throw fail(.numberOutOfRange, "\(d) does not fit in \(T.self)", key)
        }
        return result
    }

    func decode(_ type: Float.Type, forKey key: String) throws -> Float {
        let (n, uid) = try targetObject(forKey: key, expected: "Float")
        guard let value = try scalarValue(n, key: key) else {
            throw fail(.typeMismatch, "expected Float, found \(found(n, uid: uid))", key)
        }
        switch value {
        case .float(let f): return f
        case .real(let d): return Float(d)
        case .integer(let i): return i.int64Value.map(Float.init) ?? Float(i.uint64Value ?? 0)
        default: throw fail(.typeMismatch, "expected Float, found \(found(n, uid: uid))", key)
        }
    }

    func decode(_ type: Double.Type, forKey key: String) throws -> Double {
        let (n, uid) = try targetObject(forKey: key, expected: "Double")
        guard let value = try scalarValue(n, key: key) else {
            throw fail(.typeMismatch, "expected Double, found \(found(n, uid: uid))", key)
        }
        switch value {
        case .real(let d): return d
        case .float(let f): return Double(f)
        case .integer(let i): return i.int64Value.map(Double.init) ?? Double(i.uint64Value ?? 0)
        default: throw fail(.typeMismatch, "expected Double, found \(found(n, uid: uid))", key)
        }
    }

    // MARK: Strings, data, dates, UUIDs, URLs

    func decode(_ type: String.Type, forKey key: String) throws -> String {
        let (value, uid) = try targetObject(forKey: key, expected: "String")
        return try string(value, uid: uid, key: key)
    }

    func string(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> String {
        if case .string(let s)? = try scalarValue(value, key: key) {
            try session.countBytes(s.utf8.count, key: pathKey(key))
            return s
        }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.stringNames, expected: "String")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.stringKey, key: key)
        guard case .string(let s)? = innerValue else {
            throw fail(.typeMismatch, "\(cls).\(Catalogue.stringKey) must be a string, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
        try session.countBytes(s.utf8.count, key: pathKey(key))
        return s
    }

    func decode(_ type: Data.Type, forKey key: String) throws -> Data {
        let (value, uid) = try targetObject(forKey: key, expected: "Data")
        return try data(value, uid: uid, key: key)
    }

    func data(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> Data {
        if case .data(let d)? = try scalarValue(value, key: key) {
            try session.countBytes(d.count, key: pathKey(key))
            return d
        }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.dataNames, expected: "Data")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.dataKey, key: key)
        guard case .data(let d)? = innerValue else {
            throw fail(.typeMismatch, "\(cls).\(Catalogue.dataKey) must be data, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
        try session.countBytes(d.count, key: pathKey(key))
        return d
    }

    func decode(_ type: Date.Type, forKey key: String) throws -> Date {
        let (value, uid) = try targetObject(forKey: key, expected: "Date")
        return try date(value, uid: uid, key: key)
    }

    func date(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> Date {
        if case .date(let d)? = try scalarValue(value, key: key) { return d }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.dateNames, expected: "Date")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.timeKey, key: key)
        switch innerValue {
        case .real(let t)?: return Date(timeIntervalSinceReferenceDate: t)
        case .float(let t)?: return Date(timeIntervalSinceReferenceDate: Double(t))
        case .integer(let i)?: return Date(timeIntervalSinceReferenceDate: i.int64Value.map(Double.init) ?? Double(i.uint64Value ?? 0))
        default:
            throw fail(.typeMismatch, "\(cls).\(Catalogue.timeKey) must be a number, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
    }

    func decode(_ type: UUID.Type, forKey key: String) throws -> UUID {
        let (value, uid) = try targetObject(forKey: key, expected: "UUID")
        return try uuid(value, uid: uid, key: key)
    }

    func uuid(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> UUID {
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.uuidNames, expected: "UUID")
        let (objectUID, cls) = (object.uid, object.className)
        guard case .data(let bytes)? = try memberValue(object, Catalogue.uuidBytesKey, key: key).1,
              bytes.count == 16 else {
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.uuidBytesKey) must be 16 bytes of data", key, uid: objectUID, className: cls)
        }
        let b = [UInt8](bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    func decode(_ type: URL.Type, forKey key: String) throws -> URL {
        let (value, uid) = try targetObject(forKey: key, expected: "URL")
        return try url(value, uid: uid, key: key)
    }

    func url(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> URL {
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.urlNames, expected: "URL")
        let relativeValue = try member(dict, Catalogue.relativeKey, of: objectUID, className: cls, key: key)
        var relativeUID: ArchiveObjectID?
        if let r = try session.lookup(dict, Catalogue.relativeKey, key: pathKey(key), uid: objectUID),
           let ref = try session.uid(r, key: pathKey(key)) {
            relativeUID = ArchiveObjectID(reference: ref)
        }
        let relative = try string(relativeValue, uid: relativeUID, key: key)
        var base: URL?
        if let baseRef = try session.lookup(dict, Catalogue.baseKey, key: pathKey(key), uid: objectUID),
           try session.uid(baseRef, key: pathKey(key)) != 0 {
            let (baseValue, baseUID) = try session.target(of: baseRef, key: pathKey(key), expected: "URL")
            try session.enter(uid: objectUID, className: cls, key: pathKey(key))
            defer { session.leave(uid: objectUID, decoded: false) }
            base = try session.nested { try url(baseValue, uid: baseUID, key: key) }
        }
        switch ArchivedURLResolution.url(relative: relative, base: base) {
        case .success(let result): return result
        case .failure(let refusal):
            let why: String
            switch refusal {
            case .emptyWithoutBase: why = "is empty and \(cls).\(Catalogue.baseKey) is nil"
            case .characterNotAllowed(let offset): why = "has a character a URL does not allow at UTF-8 offset \(offset)"
            case .unparsable: why = "is not a valid URL"
            }
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.relativeKey) \"\(relative.prefix(80))\" \(why)", key,
                       uid: objectUID, className: cls)
        }
    }
}
