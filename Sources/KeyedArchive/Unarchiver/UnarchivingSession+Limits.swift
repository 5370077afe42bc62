// The session's limits (bytes, elements, objects, depth) and the cycle check, counted as the decoders read.
extension UnarchivingSession {
    /// Counts the bytes of a string or data value (inlined: every string read ends here).
    @inline(__always)
    func countBytes(_ n: Int, key: String?) throws {
        guard addBytes(n) else { throw tooManyBytes(key: key) }
    }

    /// Adds `n` bytes to the count and returns true when the sum stays within the byte limit; false, with
    /// the count unchanged, when it would not.
    @inline(__always)
    private func addBytes(_ n: Int) -> Bool {
        let (sum, overflow) = s.byteCount.addingReportingOverflow(n)
        guard !overflow, sum <= limits.maximumByteCount else { return false }
        s.byteCount = sum
        return true
    }

    /// The string that collection element `ref` names when it is a UID, in range, of a string object that
    /// reads without fault and whose bytes fit under the byte limit (they are then counted, as
    /// ``ArchiveObjectDecoder`` counts a string it reads). nil, having changed nothing, for anything else:
    /// the element's full decode then reads it or reports what is wrong, with its key path.
    @inline(__always)
    func plainStringElement(_ ref: Int) -> String? {
        guard let target = storage.resolvedUID(ref), target > 0, target < UInt64(objectCount),
              let n = try? storage.object(ArchiveObjectID(reference: target)),
              case .string(let string)? = try? storage.scalarValue(n) else {
            return nil
        }
        return addBytes(string.utf8.count) ? string : nil
    }

    @inline(never)
    private func tooManyBytes(key: String?) -> KeyedArchiveError {
        error(.limitExceeded, "more than \(limits.maximumByteCount) bytes of strings and data (limits.maximumByteCount)",
              key: key, uid: nil, className: nil)
    }

    /// Counts the elements of a collection about to be decoded.
    func countElements(_ n: Int, key: String?, uid: ArchiveObjectID, className: String) throws {
        let (sum, overflow) = s.decodedElementCount.addingReportingOverflow(n)
        guard !overflow, sum <= limits.maximumElementCount else {
            throw error(.limitExceeded, "more than \(limits.maximumElementCount) collection elements (limits.maximumElementCount)",
                        key: key, uid: uid, className: className)
        }
        s.decodedElementCount = sum
    }

    /// Counts one object and checks the depth before entering it.
    func enter(uid: ArchiveObjectID, className: String, key: String?) throws {
        s.decodedObjectCount += 1
        guard s.decodedObjectCount <= limits.maximumObjectCount else {
            throw error(.limitExceeded, "more than \(limits.maximumObjectCount) objects (limits.maximumObjectCount)",
                        key: key, uid: uid, className: className)
        }
        guard s.inProgress.count < limits.maximumDepth else {
            throw error(.limitExceeded, "objects nested deeper than \(limits.maximumDepth) (limits.maximumDepth)",
                        key: key, uid: uid, className: className)
        }
        if state(uid) == .inProgress { throw cycleError(uid: uid, className: className, key: key) }
        s.table.begin(uid)
        s.inProgress.append((uid, className, s.path.count))
    }

    /// The number of objects and containers being decoded (the nesting depth).
    var depth: Int { s.inProgress.count }

    func leave(uid: ArchiveObjectID, decoded: Bool) {
        s.table.end(uid, decoded: decoded)
        s.inProgress.removeLast()
    }

    /// The decoding state of `uid`; not started once the session is released.
    @inline(__always)
    func state(_ uid: ArchiveObjectID) -> DecodedObjectTable.ObjectState {
        s.table.state(uid)
    }

    /// Names the cycle: each object on it, its class and where it was entered.
    func cycleError(uid: ArchiveObjectID, className: String, key: String?) -> KeyedArchiveError {
        var steps: [String] = []
        if let start = s.inProgress.lastIndex(where: { $0.uid == uid }) {
            for entry in s.inProgress[start...] {
                var p = ""
                for component in path.prefix(entry.pathCount) { append(component, to: &p) }
                steps.append("\(entry.className) #\(entry.uid.rawValue) at \(p.isEmpty ? "top" : p)")
            }
        }
        steps.append("\(className) #\(uid.rawValue) again at \(pathString(appending: key))")
        return error(.cycle,
                     "object #\(uid.rawValue) (\(className)) refers back to itself while it is being decoded: "
                        + steps.joined(separator: " -> ")
                        + "; read back-references with decodeObjectReference(of:forKey:assign:)",
                     key: key, uid: uid, className: className)
    }
}
