#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension UnarchivingSession {
    // MARK: Key tables

    /// The decoded keys of an object dictionary, shared by all dictionaries with the same key objects in
    /// the same order (writers that de-duplicate strings, Apple's and ours, give every instance of a class
    /// the same ones). Only built when every key is an ASCII string and no key repeats, so a lookup in
    /// the table gives the answer the byte-by-byte scan would give.
    final class KeyTable {
        /// A dictionary with these keys (its key references are compared with another's).
        let fields: ArchiveFields
        /// The stored keys.
        let keys: [String]
        /// The key a model passes to read each entry: the stored key, or for `$$name` the escaped
        /// `$name`; nil for `$`-keys no model key reaches (`$class`).
        let modelKeys: [String?]
        /// Where `$class` is, if present.
        let classPosition: Int?

        init(fields: ArchiveFields, keys: [String]) {
            self.fields = fields
            self.keys = keys
            self.modelKeys = keys.map { key in
                guard key.utf8.first == UInt8(ascii: "$") else { return key }
                return key.utf8.dropFirst().first == UInt8(ascii: "$") ? String(key.dropFirst()) : nil
            }
            self.classPosition = keys.firstIndex(of: "$class")
        }

        /// The position of the entry a model reads with `key`, looking first just after `hint` and at
        /// `hint` (fields are usually read in the order they were written, optional ones twice).
        @inline(__always)
        func position(ofModelKey key: String, after hint: Int) -> Int? {
            let count = modelKeys.count
            if hint + 1 < count, modelKeys[hint + 1] == key { return hint + 1 }
            if hint >= 0, hint < count, modelKeys[hint] == key { return hint }
            return modelKeys.firstIndex(of: key)
        }

        /// The position of the stored key `name` (for Foundation objects' members).
        @inline(__always)
        func position(ofStoredKey name: String) -> Int? {
            keys.firstIndex(of: name)
        }
    }


    /// The key table for `fields`, or nil when lookups must scan the bytes.
    func keyTable(for fields: ArchiveFields) -> KeyTable? {
        var i = 0
        while i < s.keyTableFields.count {
            if storage.sameKeys(s.keyTableFields[i], fields) { return s.keyTables[i] }
            i += 1
        }
        guard let table = makeKeyTable(fields) else { return nil }
        if s.keyTables.count < 8 {
            s.keyTables.append(table)
            s.keyTableFields.append(fields)
        } else {
            s.keyTables[s.keyTables.count - 1] = table
            s.keyTableFields[s.keyTableFields.count - 1] = fields
        }
        return table
    }

    private func makeKeyTable(_ fields: ArchiveFields) -> KeyTable? {
        // Model keys are short; long ones are left to the byte comparison (which never decodes them).
        guard fields.count <= 64, let keys = storage.shortKeys(fields, maximumLength: 128) else { return nil }
        for (i, key) in keys.enumerated() {
            guard key.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            for j in 0 ..< i where keys[j] == key { return nil }
        }
        return KeyTable(fields: fields, keys: keys)
    }
}
