#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The session's reads of the archive's bytes: each a call to `ArchiveStorage` whose property-list faults
// become keyed-archive errors at the current key path and object.
extension UnarchivingSession {
    // MARK: Reading the archive

    /// A property-list fault met while reading, as a keyed-archive error at the current path.
    @inline(never)
    func damaged(_ error: PropertyListError, key: String?, uid: ArchiveObjectID?) -> KeyedArchiveError {
        KeyedArchiveReader.unreadable(error, keyPath: pathString(appending: key), objectUID: uid?.objectUID)
    }

    /// The property-list object of `$objects[uid]` (`uid` below ``objectCount``).
    @inline(__always)
    func object(_ uid: ArchiveObjectID, key: String?) throws -> Int {
        do { return try storage.object(uid) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The fields of dictionary `n`, or nil when `n` is not a dictionary.
    @inline(__always)
    func fields(_ n: Int, key: String?, uid: ArchiveObjectID?) throws -> ArchiveFields? {
        do { return try storage.fields(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The value stored under `name` in `fields`, or nil.
    @inline(__always)
    func lookup(_ fields: ArchiveFields, _ name: String, key: String?, uid: ArchiveObjectID?) throws -> Int? {
        do { return try storage.lookup(fields, name) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The UID value of `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int, key: String?) throws -> UInt64? {
        do { return try storage.uid(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: nil) }
    }

    /// The value of `n` when it is neither a container nor a UID; nil otherwise.
    @inline(__always)
    func scalarValue(_ n: Int, key: String?, uid: ArchiveObjectID?) throws -> PropertyListValue? {
        do { return try storage.scalarValue(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The object number of entry `i`'s value.
    @inline(__always)
    func value(at i: Int, of fields: ArchiveFields, key: String?, uid: ArchiveObjectID?) throws -> Int {
        do { return try storage.value(at: i, of: fields) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// Appends the element objects of array `n` to `refs`; false (nothing appended) when `n` is not an array.
    func appendArrayElements(of n: Int, to refs: inout [Int], key: String?, uid: ArchiveObjectID?) throws -> Bool {
        guard storage.kind(n) == .array else { return false }
        do { return try storage.appendElements(of: n, to: &refs) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// What `n` is, for messages ("string", "dictionary", ...).
    func kindName(_ n: Int) -> String {
        (try? storage.kindName(n)) ?? "damaged object"
    }

    /// A short preview of scalar `n` for messages (empty for others).
    func preview(_ n: Int) -> String {
        guard let value = (try? storage.scalarValue(n)) ?? nil else { return "" }
        return KeyedArchiveRules.preview(value)
    }
}
