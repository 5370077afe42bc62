import Foundation

/// The typedstream and chat.db figures (issue #34's and #36's speed goals): reading against pytypedstream
/// and against the keyed unarchiver on the same values, per byte and per object; blobs per second; peak memory.
extension Report {
    /// Time per unit of a result key's `@size` (bytes or objects) for the operation `timeKey`.
    func perUnit(_ timeKey: String, _ sizeKey: String) -> Double? {
        guard let t = median(timeKey), let units = sizes[sizeKey], units > 0 else { return nil }
        return t / Double(units)
    }

    /// typedstream's time per unit over keyed's, for `what` (`blobs`, `large`) and `unit` (``""`` bytes, `-objects`).
    func typedstreamOverKeyed(_ what: String, unit: String) -> Double? {
        guard let t = perUnit("typedstream.\(what)", "typedstream.\(what)\(unit)"),
              let k = perUnit("typedstream.keyed-\(what)", "typedstream.keyed-\(what)\(unit)"), k > 0 else { return nil }
        return t / k
    }

    /// The chat.db job's blobs per second for `id` (wall-clock), or nil.
    func blobsPerSecond(_ id: String) -> Double? {
        guard let t = median("chatdb.\(id).wall"), t > 0, let blobs = sizes["chatdb.blobs"] else { return nil }
        return Double(blobs) / t
    }

    /// Whether a `@size` key holds a count (objects, blobs, cores) rather than bytes.
    static func isCount(_ key: String) -> Bool { key.hasSuffix("-objects") || key == "chatdb.blobs" || key == "chatdb.cores" }

    var typedstreamLines: [String] {
        var lines: [String] = []
        for (what, label) in [("blobs", "attributedBody blobs"), ("large", "large file")] where median("typedstream.\(what)") != nil {
            let py = ratio("typedstream.pytypedstream-\(what)", "typedstream.\(what)")
            lines.append("typedstream \(label): \(figure("typedstream.\(what)")); vs pytypedstream \(x(py)) faster "
                         + (py == nil ? "(not measured)" : "(target >= 50x: \(verdict(py.map { $0 >= 50 })))"))
            let perByte = typedstreamOverKeyed(what, unit: ""), perObject = typedstreamOverKeyed(what, unit: "-objects")
            lines.append("typedstream \(label) vs the same values keyed (\(figure("typedstream.keyed-\(what)"))): time \(x(ratio("typedstream.\(what)", "typedstream.keyed-\(what)"))), "
                         + "per byte \(x(perByte)) (target <= 1x: \(verdict(perByte.map { $0 <= 1 }))), per object \(x(perObject)) "
                         + "(\(sizes["typedstream.\(what)"]?.formatted() ?? "-") vs \(sizes["typedstream.keyed-\(what)"]?.formatted() ?? "-") bytes, "
                         + "\(sizes["typedstream.\(what)-objects"]?.formatted() ?? "-") vs \(sizes["typedstream.keyed-\(what)-objects"]?.formatted() ?? "-") objects)")
        }
        if let all = blobsPerSecond("extract") {
            let one = blobsPerSecond("extract-one-thread")
            lines.append("chat.db job, \((sizes["chatdb.blobs"] ?? 0).formatted()) hex lines: \(Int(all).formatted()) blobs/s on \(sizes["chatdb.cores"] ?? 0) cores "
                         + "(wall \(figure("chatdb.extract.wall"))), \(one.map { Int($0).formatted() } ?? "-") blobs/s on 1 thread (wall \(figure("chatdb.extract-one-thread.wall")))")
            if let cpu = median("chatdb.extract-one-thread"), cpu > 0 {
                // Wall-clock time counts other processes' turns on a shared machine; CPU time does not.
                lines.append("chat.db job: \(Int(Double(sizes["chatdb.blobs"] ?? 0) / cpu).formatted()) blobs per CPU-second on 1 thread "
                             + "(CPU \(figure("chatdb.extract-one-thread")); all cores: CPU \(figure("chatdb.extract")))")
            }
        }
        return lines
    }

    var typedstreamMemoryLines: [String] {
        [("typedstream-blobs", "typedstream: reading the attributedBody blobs (results kept)"),
         ("typedstream-large", "typedstream: reading the large file (\(megabytes(sizes["typedstream.large"] ?? 0)))"),
         ("chatdb", "chat.db job (\(megabytes(sizes["chatdb.hex-bytes"] ?? 0)) of hex lines; extracted messages kept)")].compactMap { kind, label in
            memory["memory.\(kind)"].map { "\(label): peak \(megabytes($0.peak)), kept \(megabytes($0.kept))" }
        }
    }

    /// The Performance table's rows for typedstream and the chat.db job.
    var typedstreamMarkdownRows: [(String, String, String)] {
        var rows: [(String, String, String)] = []
        for (what, label) in [("blobs", "read attributedBody blobs (typedstream)"), ("large", "read a large typedstream file")] where median("typedstream.\(what)") != nil {
            let py = median("typedstream.pytypedstream-\(what)") != nil
                ? "pytypedstream \(figure("typedstream.pytypedstream-\(what)")) (\(x(ratio("typedstream.pytypedstream-\(what)", "typedstream.\(what)"))))" : "pytypedstream not measured"
            rows.append(("\(label), \(megabytes(sizes["typedstream.\(what)"] ?? 0))",
                         "\(figure("typedstream.\(what)")); the same values keyed \(figure("typedstream.keyed-\(what)")) "
                         + "(per byte \(x(typedstreamOverKeyed(what, unit: ""))), per object \(x(typedstreamOverKeyed(what, unit: "-objects"))) keyed's time)"
                         + (memory["memory.typedstream-\(what)"].map { ", peak memory \(megabytes($0.peak))" } ?? ""), py))
        }
        if let all = blobsPerSecond("extract") {
            rows.append(("chat.db job: \((sizes["chatdb.blobs"] ?? 0).formatted()) attributedBody hex lines, text and attributes",
                         "\(Int(all).formatted()) blobs/s on \(sizes["chatdb.cores"] ?? 0) cores (\(figure("chatdb.extract.wall")) wall)"
                         + (memory["memory.chatdb"].map { ", peak memory \(megabytes($0.peak))" } ?? ""), ""))
        }
        return rows
    }
}
