#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// KeyedArchiver's ArchiveEncoder methods for scalars, Foundation value classes and objects (collections
// are in KeyedArchiver+Collections.swift).
extension KeyedArchiver {
    public func encode(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.bool(value), forKey: key)
    }

    public func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        // Fast path for the common widths (this generic requirement runs unspecialized through `any ArchiveEncoder`).
        if T.self == Int.self {
            put(inline: s.emitter.integer(Int64(unsafeBitCast(value, to: Int.self))), forKey: key)
            return
        }
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        put(inline: s.emitter.integer(integer), forKey: key)
    }

    public func encode(_ value: Float, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.float(value), forKey: key)
    }

    public func encode(_ value: Double, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.real(value), forKey: key)
    }

    public func encode(_ value: String, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.string(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Data, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.data(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Date, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let cls = classRef(.date)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, timeKey, s.emitter.real(value.timeIntervalSinceReferenceDate))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    public func encode(_ value: UUID, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let bytes = withUnsafeBytes(of: value.uuid) { Data($0) }
        let cls = classRef(.uuid)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, uuidBytesKey, s.emitter.data(bytes))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    public func encode(_ value: URL, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: urlObject(value), asElement: asElement, forKey: key)
    }

    /// An NSURL object: its base first (recursively), then its relative string, then itself.
    private func urlObject(_ url: URL) -> ArchiveObjectID {
        let base = url.baseURL.map { urlObject($0) } ?? .null
        let relative = s.emitter.appendElement(s.emitter.string(url.relativeString))
        let cls = classRef(.url)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, baseKey, KeyedArchiveEmitter.uid(base), relativeKey, KeyedArchiveEmitter.uid(relative))
        return uid
    }

    /// Writes an integer as its own NSNumber object, referenced by UID (as Apple writes NSValue's range members).
    public func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.integer(integer)), asElement: asElement, forKey: key)
    }

    /// Writes a `Double` as its own NSNumber object, referenced by UID.
    public func encodeRealObject(_ value: Double, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.real(value)), asElement: asElement, forKey: key)
    }

    /// Writes a Boolean as its own NSNumber object, referenced by UID.
    public func encodeBoolObject(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.bool(value)), asElement: asElement, forKey: key)
    }

    /// Writes a string inline in the current object (as Apple writes NSMutableString's `NS.string`).
    public func encodeInline(_ value: String, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.string(value), forKey: key)
    }

    /// Writes bytes inline in the current object (as Apple writes NSMutableData's `NS.data`).
    public func encodeInline(_ value: Data, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.data(value), forKey: key)
    }

    public func encodeNil(forKey key: String) throws {
        try checkOpen()
        if takeCapture() {
            throw KeyedArchiveError(.invalidValue,
                                    "an archived array, set or dictionary cannot hold nil (NSArray cannot); use ArchiveNull",
                                    keyPath: key)
        }
        setField(key, KeyedArchiveEmitter.uid(.null))
    }

    public func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid: ArchiveObjectID
        if isClass(T.self) {
            // T is a concrete class type here, so the value is one object reference: its address is the
            // identity (read without retaining the instance; the queue keeps a new one alive).
            // (A bit cast, not `withUnsafeBytes(of:)`, which this unspecialized generic calls out of line.)
            let address = unsafeBitCast(object, to: UInt.self)
            if let known = s.identities.uid(for: address) {
                uid = known
            } else {
                let (newUID, container) = s.emitter.appendContainerElement()
                uid = newUID
                s.identities.insert(address, uid: uid)
                s.queue.append((container, uid, object))
            }
        } else {
            let (newUID, container) = s.emitter.appendContainerElement()
            uid = newUID
            s.queue.append((container, uid, object))
        }
        if s.drainedIsCodable { recordCodableReference(to: uid, forKey: key) }
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer == nil && !asElement { try drain() }
    }

    public func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        try checkOpen()
        guard let object else {
            if s.capturing { s.capturing = false; s.captured = .null } else { setField(key, KeyedArchiveEmitter.uid(.null)) }
            return
        }
        if s.capturing {
            // As a collection element there is no field to patch later: encode it unconditionally.
            try encodeObject(object, forKey: key)
            return
        }
        if let known = s.identities.uid(for: UInt(bitPattern: ObjectIdentifier(object))) {
            setField(key, KeyedArchiveEmitter.uid(known))
        } else {
            let field = setField(key, KeyedArchiveEmitter.uid(.null))
            s.pendingConditionals.append((s.currentContainer, field, object))
        }
    }
}
