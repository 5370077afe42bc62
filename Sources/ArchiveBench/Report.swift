import Foundation

/// The driver's closing report: every figure (median over processes, with the spread), the ratios the
/// performance issue sets targets for, growth, peak memory, and optionally the Performance article's table.
struct Report {
    var times: [String: [Double]]
    var sizes: [String: Int]
    var memory: [String: (peak: Int, kept: Int)]
    var settings: DriverSettings
    var libplistNote: String
    /// What the children skipped and why (`@note` lines), and the check of GNUstep's archive.
    var notes: [String] = []
    /// Why GNUstep's peer was not measured (empty when it was, or was not asked for).
    var gnustepNote = ""

    /// The median over processes of `key`'s per-process medians.
    func median(_ key: String) -> Double? {
        guard let values = times[key], !values.isEmpty else { return nil }
        return archive_bench.median(values)
    }

    /// (max - min) / median over the processes.
    func spread(_ key: String) -> Double? {
        guard let values = times[key], let m = median(key), m > 0, let lo = values.min(), let hi = values.max() else { return nil }
        return (hi - lo) / m
    }

    /// `12.34 ms ±5%`, or `-` when not measured.
    func figure(_ key: String) -> String {
        guard let m = median(key) else { return "-" }
        return time(m) + (spread(key).map { String(format: " ±%.0f%%", $0 * 100) } ?? "")
    }

    func time(_ seconds: Double) -> String { Self.time(seconds) }

    static func time(_ seconds: Double) -> String {
        seconds >= 1 ? String(format: "%.2f s", seconds) : seconds >= 0.01 ? String(format: "%.1f ms", seconds * 1000)
            : String(format: "%.3f ms", seconds * 1000)
    }

    /// `numerator / denominator` of two medians, as `12.3x`.
    func ratio(_ numerator: String, _ denominator: String) -> Double? {
        guard let a = median(numerator), let b = median(denominator), b > 0 else { return nil }
        return a / b
    }

    func x(_ value: Double?) -> String { Self.x(value) }

    static func x(_ value: Double?) -> String { value.map { String(format: "%.2fx", $0) } ?? "-" }

    func megabytes(_ bytes: Int) -> String { String(format: "%.1f MB", Double(bytes) / 1e6) }
    func verdict(_ ok: Bool?) -> String { ok.map { $0 ? "met" : "NOT met" } ?? "" }

    var archiverSizes: [Int] { settings.sizes }

    func print() {
        Swift.print("\n== all figures (median over processes ±spread; \(settings.processes) processes each unless noted\(turnsNote))")
        for key in times.keys.sorted() {
            Swift.print("  " + key.padding(toLength: 44, withPad: " ", startingAt: 0) + figure(key)
                        + (times[key]!.count == settings.processes ? "" : "  (\(times[key]!.count) processes)"))
        }
        for (key, bytes) in sizes.sorted(by: { $0.key < $1.key }) {
            Swift.print("  " + ("size " + key).padding(toLength: 44, withPad: " ", startingAt: 0) + "\(bytes.formatted())\(Self.isCount(key) ? "" : " bytes")")
        }

        Swift.print("\n== ratios (targets from issue #18; the array-shaped model's from issue #33)")
        for size in archiverSizes {
            let p = "archiver.\(size)"
            guard median("\(p).unarchive") != nil else { continue }
            let n = size.formatted()
            if median("\(p).foundation-unarchive") != nil {
                let u = ratio("\(p).foundation-unarchive", "\(p).unarchive"), a = ratio("\(p).foundation-archive", "\(p).archive")
                Swift.print("  \(n): unarchive vs Foundation    \(x(u)) faster (target >= 50x: \(verdict(u.map { $0 >= 50 })))")
                Swift.print("  \(n): archive vs Foundation      \(x(a)) faster (target >= 80x: \(verdict(a.map { $0 >= 80 })))")
            } else {
                Swift.print("  \(n): Foundation not run at this size (--foundation-max \(settings.foundationMaximum))")
            }
            if median("\(p).gnustep-archive") != nil || median("\(p).gnustep-unarchive") != nil {
                Swift.print("  \(n): archive vs GNUstep NSKeyedArchiver (XML output)  \(x(ratio("\(p).gnustep-archive", "\(p).archive"))) faster (peer; other processes)")
                Swift.print("  \(n): unarchive vs GNUstep NSKeyedUnarchiver (XML input)  \(x(ratio("\(p).gnustep-unarchive", "\(p).unarchive"))) faster "
                            + "(peer; other processes)")
            }
            let r = ratio("\(p).unarchive", "\(p).read")
            Swift.print("  \(n): unarchive / our plist read of the same bytes  \(x(r)) (target <= 1.2x: \(verdict(r.map { $0 <= 1.2 })))")
            Swift.print("  \(n): " + sameBytes(size: size).line)
        }
        for stem in libplistStems {
            let r = ratio("libplist.\(stem).libplist", "libplist.\(stem).ours")
            Swift.print("  plist read vs libplist, \(stem).bplist: \(x(r)) faster (same bytes, same process; target >= 2x: \(verdict(r.map { $0 >= 2 })))")
        }
        for stem in libplistStems {
            guard let w = ratio("libplist.\(stem).libplist-write", "libplist.\(stem).ours-write") else { continue }
            Swift.print("  plist write vs libplist, \(stem).bplist: \(x(w)) faster (each library's tree of the same bytes, same process; "
                        + "ours \(figure("libplist.\(stem).ours-write")), plist_to_bin \(figure("libplist.\(stem).libplist-write")))")
        }
        if !libplistNote.isEmpty { Swift.print("  " + libplistNote) }
        if !gnustepNote.isEmpty { Swift.print("  " + gnustepNote) }
        if let w = ratio("data-blob.memcpy", "data-blob.write") {
            Swift.print("  64 MiB blob write: \(x(w)) of memcpy speed between touched buffers (target >= 0.5x: \(verdict(w >= 0.5)))")
        }
        if let r = median("data-blob.read") {
            Swift.print("  64 MiB blob read: \(time(r)) (target < 1 ms: \(verdict(r < 0.001)))")
        }
        for line in largeArchiveLines + typedstreamLines { Swift.print("  " + line) }
        var seen: Set<String> = []
        for note in notes where seen.insert(note).inserted { Swift.print("  " + note) }  // once, though every process says it
        if let a = ratio("codable.codable-archive", "codable.hand-archive"), let u = ratio("codable.codable-unarchive", "codable.hand-unarchive") {
            Swift.print("  ArchivableCodable model vs hand-written: archive \(x(a)), unarchive \(x(u)) the time")
        }
        for (label, archive, unarchive) in [("hand-written", "archive", "unarchive"), ("ArchivableCodable", "codable-archive", "codable-unarchive")] {
            guard let u = ratio("collections.foundation-unarchive", "collections.\(unarchive)"),
                  let a = ratio("collections.foundation-archive", "collections.\(archive)") else { continue }
            Swift.print("  array-shaped model (\(label)): unarchive vs Foundation \(x(u)) faster (target >= 50x: \(verdict(u >= 50))), "
                        + "archive vs Foundation \(x(a)) faster (target >= 80x: \(verdict(a >= 80)))")
        }
        if let foundation = median("collections.foundation-unarchive"), let floor = median("collections.codable-decode-floor"),
           let encodeFloor = median("collections.codable-encode-floor") {
            // What a Codable model's unarchive at the goal's ratio leaves for reading the archive, beside the
            // hand-written model's whole unarchive of the same archive shape.
            Swift.print("  array-shaped model, Codable floor (the synthesized init(from:)/encode(to:) with a coder of fixed values): "
                        + "decode \(time(floor)), encode \(time(encodeFloor)); an ArchivableCodable unarchive at 50x Foundation "
                        + "leaves \(time(foundation / 50 - floor)) beyond it, where the hand-written unarchive takes \(figure("collections.unarchive"))")
        }
        for (label, peer) in [("JSONDecoder/JSONEncoder", "json"), ("PropertyListDecoder/PropertyListEncoder (binary)", "plist")] {
            guard let u = ratio("collections.foundation-unarchive", "collections.\(peer)-unarchive"),
                  let a = ratio("collections.foundation-archive", "collections.\(peer)-archive") else { continue }
            Swift.print("  array-shaped model, Codable peer \(label) (same fields, friends as indexes): decode vs NSKeyedUnarchiver \(x(u)) faster, "
                        + "encode vs NSKeyedArchiver \(x(a)) faster; ArchivableCodable is \(x(ratio("collections.\(peer)-unarchive", "collections.codable-unarchive"))) "
                        + "faster to unarchive, \(x(ratio("collections.\(peer)-archive", "collections.codable-archive"))) to archive")
        }

        Swift.print("\n== growth (ratio of the medians; each size in processes of its own; target: no more than the growth in models)")
        for (small, large) in zip(archiverSizes, archiverSizes.dropFirst()) {
            let runs = ArchiverWorkload.oursRuns(count: large).map { " (ours at \(large.formatted()): \($0.timed) timed run(s) after \($0.warmups) warm-up(s) per process)" } ?? ""
            Swift.print("  \(small.formatted()) -> \(large.formatted()) models\(runs):")
            if let growth = bytesGrowth(small, large) {
                Swift.print("    " + "the archive's bytes".padding(toLength: 34, withPad: " ", startingAt: 0) + x(growth)
                            + "  (\(megabytes(sizes["archiver.\(small).archive"] ?? 0)) -> \(megabytes(sizes["archiver.\(large).archive"] ?? 0)); "
                            + "a cost per byte grows this much before any cache effect)")
            }
            for (label, op) in [("archive", "archive"), ("unarchive", "unarchive"), ("plist read", "read"), ("plist write", "write"),
                                ("graph-building floor", "graph-floor"), ("models' encode(to:) floor", "encode-floor"),
                                ("one load of every byte (floor)", "read-pass"), ("one store into every byte (floor)", "write-pass"),
                                ("Foundation NSKeyedArchiver", "foundation-archive"), ("Foundation NSKeyedUnarchiver", "foundation-unarchive")] {
                let g = ratio("archiver.\(large).\(op)", "archiver.\(small).\(op)")
                if g == nil && (op.hasSuffix("-floor") || op.hasSuffix("-pass")) { continue }  // a log from before the floor existed
                let note = g == nil && op.hasPrefix("foundation") ? "not run at \(large.formatted())"
                    : verdict(g.map { $0 <= Double(large) / Double(small) })
                Swift.print("    " + label.padding(toLength: 34, withPad: " ", startingAt: 0) + x(g) + "  " + note)
            }
            // What our code takes beyond the work the model's own code does (its encode(to:); building its graph).
            for (label, op, floor) in [("archive beyond the encode floor", "archive", "encode-floor"),
                                       ("unarchive beyond the graph floor", "unarchive", "graph-floor")] {
                guard let a = median("archiver.\(small).\(op)"), let fa = median("archiver.\(small).\(floor)"),
                      let b = median("archiver.\(large).\(op)"), let fb = median("archiver.\(large).\(floor)"), a > fa else { continue }
                let g = (b - fb) / (a - fa)
                Swift.print("    " + label.padding(toLength: 34, withPad: " ", startingAt: 0) + x(g) + "  "
                            + verdict(g <= Double(large) / Double(small)) + "  ((\(time(b)) - \(time(fb))) / (\(time(a)) - \(time(fa))))")
            }
            for (label, _, key) in Self.peers {
                guard let g = peerGrowth(key, small, large) else { continue }
                Swift.print("    " + label.padding(toLength: 34, withPad: " ", startingAt: 0) + x(g))
            }
        }

        Swift.print("\n== peak memory (one process per figure; peak RSS above the process's start, input file included)")
        for size in archiverSizes {
            let a = sizes["archiver.\(size).archive"] ?? 0
            if let m = memory["memory.\(size).archive"] {
                Swift.print("  archive \(size.formatted()): peak \(megabytes(m.peak)) for a \(megabytes(a)) archive (the graph exists before)")
            }
            if let m = memory["memory.\(size).unarchive"] {
                // kept = the mapped archive (all its pages touched) + the decoded graph.
                let graph = max(0, m.kept - a), target = 3 * a + graph
                Swift.print("  unarchive \(size.formatted()): peak \(megabytes(m.peak)); archive \(megabytes(a)), decoded graph \(megabytes(graph)); "
                            + "target 3 x archive + graph = \(megabytes(target)): \(verdict(m.peak <= target))")
            }
            if let m = memory["memory.\(size).read"] {
                Swift.print("  plist read \(size.formatted()): peak \(megabytes(m.peak))")
            }
            if let m = memory["memory.\(size).foundation-unarchive"] {
                let fa = sizes["archiver.\(size).foundation-archive"] ?? 0
                Swift.print("  Foundation unarchive \(size.formatted()): peak \(megabytes(m.peak)) (its archive \(megabytes(fa)))")
            }
        }
        if let m = memory["memory.blob-read"] {
            Swift.print("  64 MiB blob read: peak \(megabytes(m.peak)) above the input (target: far below 64 MiB: \(verdict(m.peak < 16 << 20)))")
        }
        for line in typedstreamMemoryLines { Swift.print("  " + line) }

        let unstable = times.keys.sorted().filter { (spread($0) ?? 0) > 0.2 && (times[$0]?.count ?? 0) > 1 }
        Swift.print("\n== stability: spread of the median across processes above 20%: "
                    + (unstable.isEmpty ? "none" : unstable.map { "\($0) (\(String(format: "%.0f%%", (spread($0) ?? 0) * 100)))" }.joined(separator: ", ")))
        if settings.sizes.contains(where: { $0 > settings.foundationMaximum }) {
            Swift.print("   Foundation is skipped above \(settings.foundationMaximum.formatted()) models (--foundation-max; at 2,000,000 "
                        + "NSKeyedArchiver would take about 10 minutes a run).")
        }
        if settings.markdown { Swift.print("\n" + markdown()) }
    }

    /// archive-dump's peak RSS against the file, and the lazy open of the large archive (issue #18, goal 4).
    var largeArchiveLines: [String] {
        var lines: [String] = []
        if let m = memory["memory.dump"], m.kept > 0 {
            let r = Double(m.peak) / Double(m.kept)
            lines.append("archive-dump of a \(megabytes(m.kept)) archive: peak RSS \(megabytes(m.peak)) = \(x(r)) the file (target < 2x: \(verdict(r < 2)))")
        }
        if let m = memory["memory.lazy-open"], let t = median("large.lazy-open") {
            let ok = t < 0.1 && m.peak < m.kept / 10
            lines.append("lazy open of a \(megabytes(m.kept)) archive and one object: \(figure("large.lazy-open")), peak RSS \(megabytes(m.peak)) "
                         + "(target: milliseconds (< 100 ms) and < 1/10 of the file: \(verdict(ok)))")
        }
        return lines
    }

    /// The peers' growth lines: label in the report, label in the Performance article's table, and the result key, `%d` for the size.
    static let peers: [(label: String, short: String, key: String)] = [
        ("libplist plist_from_bin (peer)", "libplist read", "libplist.archive-%d.libplist"),
        ("libplist plist_to_bin (peer)", "libplist write", "libplist.archive-%d.libplist-write"),
        ("GNUstep NSKeyedArchiver (peer)", "GNUstep archive (XML)", "archiver.%d.gnustep-archive"),
        ("GNUstep NSKeyedUnarchiver (peer)", "GNUstep unarchive (XML)", "archiver.%d.gnustep-unarchive"),
        ("GNUstep plist read, XML (peer)", "GNUstep plist read (XML)", "archiver.%d.gnustep-plist-read"),
    ]

    /// Unarchive / plist read of the same bytes at `size` models: ours, the peers', and the graph-building floor.
    func sameBytes(size: Int) -> SameBytesRatios {
        let p = "archiver.\(size)"
        let foundation: SameBytesRatios.Peer
        if let r = ratio("\(p).foundation-unarchive", "\(p).foundation-plist-read") {
            foundation = .ratio(r)
        } else if size > settings.foundationMaximum {
            foundation = .absent("not run at this size (--foundation-max \(settings.foundationMaximum))")
        } else {
            foundation = .absent(median("\(p).foundation-unarchive") == nil ? "not measured" : "its plist read not measured")
        }
        let gnustep: SameBytesRatios.Peer
        if let r = ratio("\(p).gnustep-unarchive", "\(p).gnustep-plist-read") {
            gnustep = .ratio(r)
        } else if !gnustepNote.isEmpty {
            gnustep = .absent("not built (Benchmarks/GNUstep/build.sh)")
        } else if size > GNUstepPeer.largestSize {
            gnustep = .absent("not run above \(GNUstepPeer.largestSize.formatted()) models")
        } else if median("\(p).gnustep-unarchive") != nil {
            gnustep = .absent("its plist read not measured (an older archive-peer: rebuild it with Benchmarks/GNUstep/build.sh)")
        } else if !settings.only.isEmpty && !settings.only.contains("gnustep") {
            gnustep = .absent("not run (add --only gnustep)")
        } else {
            gnustep = .absent("not measured")
        }
        return SameBytesRatios(unarchive: median("\(p).unarchive"), read: median("\(p).read"), floor: median("\(p).graph-floor"),
                               foundation: foundation, gnustep: gnustep)
    }

    /// How many times the bytes of our `small`-model archive the `large`-model one has.
    func bytesGrowth(_ small: Int, _ large: Int) -> Double? {
        guard let a = sizes["archiver.\(small).archive"], let b = sizes["archiver.\(large).archive"], a > 0 else { return nil }
        return Double(b) / Double(a)
    }

    /// A peer's growth from `small` to `large` models.
    func peerGrowth(_ key: String, _ small: Int, _ large: Int) -> Double? {
        ratio(key.replacingOccurrences(of: "%d", with: "\(large)"), key.replacingOccurrences(of: "%d", with: "\(small)"))
    }

    var libplistStems: [String] {
        Set(times.keys.filter { $0.hasPrefix("libplist.") }.map { String($0.dropFirst(9).split(separator: ".").dropLast().joined(separator: ".")) }).sorted()
    }

    /// How the processes of one workload and size shared the time, for the report's notes.
    var turnsNote: String {
        guard settings.turns else { return ", one after another" }
        let apart = settings.sizes.filter { !settings.takesTurns(size: $0) }
        return ", run at the same time taking turns"
            + (apart.isEmpty ? "" : "; at \(apart.map { $0.formatted() }.joined(separator: ", ")) models one after another (memory)")
    }

    /// The Performance article's table (KeyedArchive.docc/Performance.md).
    func markdown() -> String {
        var rows: [String] = []
        func row(_ a: String, _ b: String, _ c: String) { rows.append("| \(a) | \(b) | \(c) |") }
        func vs(_ label: String, _ key: String, _ ours: String) -> String {
            guard median(key) != nil else { return "" }
            return "\(label) \(figure(key)) (\(x(ratio(key, ours))))"
        }
        row("read 100,000 small dictionaries", figure("small-dictionaries.read"),
            [vs("PropertyListSerialization", "small-dictionaries.serialization-read", "small-dictionaries.read"),
             vs("PropertyListDecoder", "small-dictionaries.decoder-read", "small-dictionaries.read"),
             vs("libplist", "libplist.small-dictionaries.libplist", "libplist.small-dictionaries.ours")].filter { !$0.isEmpty }.joined(separator: ", "))
        row("write 100,000 small dictionaries", figure("small-dictionaries.write"),
            [vs("PropertyListEncoder", "small-dictionaries.encoder-write", "small-dictionaries.write"),
             vs("PropertyListSerialization", "small-dictionaries.serialization-write", "small-dictionaries.write")].filter { !$0.isEmpty }.joined(separator: ", "))
        for size in archiverSizes {
            let p = "archiver.\(size)", n = size.formatted()
            guard median("\(p).archive") != nil else { continue }
            let foundation = median("\(p).foundation-archive") != nil
            let gnustepArchive = vs("GNUstep (XML output)", "\(p).gnustep-archive", "\(p).archive")
            let gnustepUnarchive = vs("GNUstep (XML input)", "\(p).gnustep-unarchive", "\(p).unarchive")
            row("archive \(n) model objects", figure("\(p).archive"),
                [foundation ? "NSKeyedArchiver \(figure("\(p).foundation-archive")) (\(x(ratio("\(p).foundation-archive", "\(p).archive"))))" : "Foundation not run (--foundation-max)",
                 gnustepArchive].filter { !$0.isEmpty }.joined(separator: ", "))
            row("unarchive \(n) model objects", figure("\(p).unarchive"),
                [foundation ? "NSKeyedUnarchiver \(figure("\(p).foundation-unarchive")) (\(x(ratio("\(p).foundation-unarchive", "\(p).unarchive"))))" : "Foundation not run",
                 gnustepUnarchive].filter { !$0.isEmpty }.joined(separator: ", "))
            let l = "libplist.archive-\(size)"
            row("our plist read / write of the same \(n)-object archive", "\(figure("\(p).read")) / \(figure("\(p).write"))",
                [median("\(l).libplist") != nil
                    ? "libplist read \(figure("\(l).libplist")) (\(x(ratio("\(l).libplist", "\(l).ours"))) our read in its process)" : "",
                 median("\(l).libplist-write") != nil
                    ? "libplist write \(figure("\(l).libplist-write")) (\(x(ratio("\(l).libplist-write", "\(l).ours-write"))) our write in its process)" : ""]
                    .filter { !$0.isEmpty }.joined(separator: ", "))
            let same = sameBytes(size: size)
            if same.ours != nil {
                row("unarchive / plist read of the same \(n)-object archive", same.markdownOurs, same.markdownPeers)
            }
        }
        if median("collections.archive") != nil {
            let c = "collections"
            row("archive 20,000 array-shaped objects (three strings and three references in arrays)", figure("\(c).archive"),
                vs("NSKeyedArchiver", "\(c).foundation-archive", "\(c).archive"))
            row("unarchive 20,000 array-shaped objects", figure("\(c).unarchive"), vs("NSKeyedUnarchiver", "\(c).foundation-unarchive", "\(c).unarchive"))
            row("the array-shaped objects as an `ArchivableCodable` model",
                "archive \(figure("\(c).codable-archive")) (\(x(ratio("\(c).foundation-archive", "\(c).codable-archive"))) Foundation), "
                    + "unarchive \(figure("\(c).codable-unarchive")) (\(x(ratio("\(c).foundation-unarchive", "\(c).codable-unarchive"))))",
                [vs("JSONEncoder", "\(c).json-archive", "\(c).codable-archive"), vs("JSONDecoder", "\(c).json-unarchive", "\(c).codable-unarchive"),
                 vs("PropertyListEncoder", "\(c).plist-archive", "\(c).codable-archive"),
                 vs("PropertyListDecoder", "\(c).plist-unarchive", "\(c).codable-unarchive")].filter { !$0.isEmpty }.joined(separator: ", "))
            if median("\(c).codable-decode-floor") != nil {
                row("Codable's own work on those objects (their `init(from:)` / `encode(to:)` with coders that read and keep nothing)",
                    "\(figure("\(c).codable-decode-floor")) / \(figure("\(c).codable-encode-floor"))", "")
            }
        }
        if let a = ratio("codable.codable-archive", "codable.hand-archive"), let u = ratio("codable.codable-unarchive", "codable.hand-unarchive") {
            row("the 20,000 objects as an `ArchivableCodable` model", "archive \(figure("codable.codable-archive")) (\(x(a)) the hand-written model), "
                    + "unarchive \(figure("codable.codable-unarchive")) (\(x(u)))", "")
        }
        for (small, large) in zip(archiverSizes, archiverSizes.dropFirst()) {
            let g = { (op: String) in self.x(self.ratio("archiver.\(large).\(op)", "archiver.\(small).\(op)")) }
            let peer = median("archiver.\(large).foundation-archive") != nil
                ? "NSKeyedArchiver \(g("foundation-archive")), NSKeyedUnarchiver \(g("foundation-unarchive"))" : "not run"
            let lib = Self.peers.compactMap { _, label, key in peerGrowth(key, small, large).map { ", \(label) \(x($0))" } }.joined()
            let runs = ArchiverWorkload.oursRuns(count: large).map { $0.timed == 1 ? " (1 run after \($0.warmups) warm-up per process)" : "" } ?? ""
            let floors = [bytesGrowth(small, large).map { "the archive's bytes \(x($0))" },
                          median("archiver.\(large).read-pass") != nil ? "one load of every byte \(g("read-pass"))" : nil,
                          median("archiver.\(large).write-pass") != nil ? "one store into every byte \(g("write-pass"))" : nil].compactMap { $0 }
            row("growth \(small.formatted()) -> \(large.formatted()) models\(runs)", "archive \(g("archive")), unarchive \(g("unarchive")), "
                    + "plist read \(g("read")), plist write \(g("write"))" + (floors.isEmpty ? "" : " (\(floors.joined(separator: ", ")))"), peer + lib)
        }
        row("64 MiB blob: read / write", "\(figure("data-blob.read")) / \(figure("data-blob.write")) "
                + "(write at \(x(ratio("data-blob.memcpy", "data-blob.write"))) of memcpy speed; memcpy between touched buffers \(figure("data-blob.memcpy")))",
            "PropertyListSerialization \(figure("data-blob.foundation-read")) / \(figure("data-blob.foundation-write"))")
        for size in archiverSizes {
            guard let m = memory["memory.\(size).unarchive"] else { continue }
            let a = sizes["archiver.\(size).archive"] ?? 0
            let f = memory["memory.\(size).foundation-unarchive"].map { "NSKeyedUnarchiver \(megabytes($0.peak))" } ?? ""
            row("peak memory, unarchiving \(size.formatted()) objects (\(megabytes(a)) archive)",
                "\(megabytes(m.peak)) (graph \(megabytes(max(0, m.kept - a))))", f)
        }
        if let m = memory["memory.dump"], m.kept > 0 {
            row("archive-dump of a \(megabytes(m.kept)) archive: peak memory", "\(megabytes(m.peak)) (\(x(Double(m.peak) / Double(m.kept))) the file)", "")
        }
        if let m = memory["memory.lazy-open"], median("large.lazy-open") != nil {
            row("open a \(megabytes(m.kept)) archive lazily and read one object", "\(figure("large.lazy-open")), peak memory \(megabytes(m.peak))", "")
        }
        for (a, b, c) in typedstreamMarkdownRows { row(a, b, c) }
        if let a = sizes["archiver.20000.archive"], let f = sizes["archiver.20000.foundation-archive"] {
            row("archive size, 20,000 objects", megabytes(a), megabytes(f))
        }
        return """
        Measured with `swift run -c release archive-bench --markdown` (\(settings.processes) processes per workload and size\(turnsNote);
        each figure is the median over the processes of each process's median CPU time, ± the spread of those medians;
        ratios in parentheses are how many times faster KeyedArchive is, or growth in time).

        | | KeyedArchive | Foundation / libplist / GNUstep |
        |---|---|---|
        \(rows.joined(separator: "\n"))
        """
    }
}

/// Issue #18's "unarchive at most 1.2x our plist read of the same bytes" at one size, beside what the peers'
/// unarchivers take over their own plist reads of the same bytes and what the work itself needs: the
/// graph-building floor (``GraphFloor``), and what our unarchive takes beyond it, in units of our read.
struct SameBytesRatios {
    /// A peer's unarchive / plist read, or why there is none.
    enum Peer: Equatable {
        case ratio(Double)
        case absent(String)
    }

    /// Our unarchive's, our read's and the floor's median times (seconds), when measured.
    var unarchive: Double?
    var read: Double?
    var floor: Double?
    /// NSKeyedUnarchiver / PropertyListSerialization on Foundation's archive.
    var foundation: Peer
    /// GNUstep's NSKeyedUnarchiver / NSPropertyListSerialization on GNUstep's XML archive.
    var gnustep: Peer

    /// Our unarchive / read.
    var ours: Double? {
        guard let unarchive, let read, read > 0 else { return nil }
        return unarchive / read
    }

    /// (unarchive - floor) / read: what our unarchive takes beyond building the graph, in units of our read.
    var beyondFloor: Double? {
        guard let unarchive, let read, let floor, read > 0 else { return nil }
        return (unarchive - floor) / read
    }

    func describe(_ name: String, _ peer: Peer) -> String {
        switch peer {
        case .ratio(let r): return "\(name) \(Report.x(r))"
        case .absent(let why): return "\(name) \(why)"
        }
    }

    /// The report's line: `unarchive / read of the same bytes: KeyedArchive X, Foundation Y, GNUstep Z;
    /// graph-building floor F ms (unarchive - floor = R x read)`.
    var line: String {
        let floorPart = floor.map { "graph-building floor \(Report.time($0)) (unarchive - floor = \(Report.x(beyondFloor)) read)" }
            ?? "graph-building floor not measured"
        return "unarchive / read of the same bytes: KeyedArchive \(Report.x(ours)), \(describe("Foundation", foundation)), "
            + "\(describe("GNUstep", gnustep)); \(floorPart)"
    }

    /// The Performance table's cells: ours (with the floor), and the peers'.
    var markdownOurs: String {
        Report.x(ours) + (floor.map { " (\(Report.x(beyondFloor)) beyond the graph-building floor of \(Report.time($0)))" } ?? "")
    }

    var markdownPeers: String {
        [foundation.ratioText.map { "NSKeyedUnarchiver / PropertyListSerialization on its archive \($0)" } ?? describe("Foundation", foundation),
         gnustep.ratioText.map { "GNUstep NSKeyedUnarchiver / NSPropertyListSerialization (XML) \($0)" } ?? describe("GNUstep", gnustep)]
            .joined(separator: ", ")
    }
}

extension SameBytesRatios.Peer {
    /// `1.23x`, or nil when absent.
    var ratioText: String? {
        if case .ratio(let r) = self { return Report.x(r) }
        return nil
    }
}
