import Foundation
import KeyedArchive

/// GNUstep's NSKeyedArchiver and NSKeyedUnarchiver as the archive/unarchive peer (issue #18's growth goal):
/// `Benchmarks/GNUstep/archive-peer`, built by `Benchmarks/GNUstep/build.sh`, run by the driver as a child
/// for each size, one process after another.
///
/// The child builds the same graph as ``ArchiverWorkload`` and times GNUstep's archiver with XML output and
/// its unarchiver on that XML archive (GNUstep 1.28's binary writer is quadratic in the objects, and its
/// binary reader takes 1- and 2-byte UIDs only; see archive-peer.m), and prints
/// `@time archiver.<count>.gnustep-archive|gnustep-unarchive|gnustep-plist-read` (its NSPropertyListSerialization on the same XML,
/// the first step of its unarchiver) and `@size archiver.<count>.gnustep-archive` lines.
/// Before timing it checks, untimed, that its archive decodes to the original graph; the driver then checks,
/// once per size, that KeyedUnarchiver reads the same graph from it (``check(count:)``).
struct GNUstepPeer {
    /// The `archive-peer` executable.
    var executable: String
    /// Where GNUstep's archives are written for ``check(count:)``.
    var directory: String

    static let defaultPath = "Benchmarks/GNUstep/.build/archive-peer"
    static let buildHint = "GNUstep peer (NSKeyedArchiver/NSKeyedUnarchiver): not measured (build it: Benchmarks/GNUstep/build.sh)"
    /// The largest size the peer runs at: at 200,000 models one process peaks at 10 GB (its unarchiver builds the
    /// whole XML property list, 290 MB of text, as objects first), and at about 15 GB of RSS once its plist read
    /// has run after the unarchiver (glibc keeps what the process freed), so 2,000,000 would need about 100 GB.
    /// Mind the machine's memory when the peer's processes run beside other work.
    static let largestSize = 200_000
    static let tooLargeNote = "GNUstep peer not run above \(largestSize.formatted()) models (one process peaks at 10-15 GB at 200,000)"

    /// The arguments of one child at `count` models; `writesArchive`: also write GNUstep's archive, for ``check(count:)``.
    func arguments(count: Int, settings: DriverSettings, writesArchive: Bool) -> [String] {
        // Above 20,000 models (seconds a run: 6 s to archive, 15 s to unarchive 200,000) 1 timed run after 1 warm-up per
        // process; up to 20,000 the command line's, with the same minimum of timed CPU time as our own operations.
        let runs: (timed: Int, warmups: Int)? = count > 20_000 ? (1, 1) : nil
        var arguments = ["--count", "\(count)", "--runs", "\(runs?.timed ?? settings.runs)", "--warmup", "\(runs?.warmups ?? settings.warmups)",
                         "--minimum-seconds", "\(runs == nil ? minimumTimedSeconds : 0)"]
        if writesArchive { arguments += ["--write", archivePath(count: count)] }
        return arguments
    }

    func archivePath(count: Int) -> String { "\(directory)/gnustep-\(count).xml" }

    /// Reads the archive GNUstep wrote of `count` models with KeyedUnarchiver and compares it with the graph
    /// (every field of every model and every friend's identity); returns a line for the report saying whether it did.
    ///
    /// The archive is an XML property list: a score is compared to 1e-13 of itself and a birthday to the second,
    /// what GNUstep's XML writer keeps (16 significant digits, whole seconds).
    func check(count: Int) -> String {
        let path = archivePath(count: count)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let back = try KeyedUnarchiver(count: count).decode([BenchPerson].self, from: data)
            let people = BenchPerson.graph(count: count)
            if let difference = GNUstepPeer.difference(back, people) {
                return "GNUstep's archive of \(count.formatted()) models (XML, \(data.count.formatted()) bytes): KeyedUnarchiver reads it, but \(difference)"
            }
            return "GNUstep's archive of \(count.formatted()) models (XML, \(data.count.formatted()) bytes): KeyedUnarchiver reads it back as the same graph"
        } catch {
            return "GNUstep's archive of \(count.formatted()) models: KeyedUnarchiver does NOT read it: \(error)"
        }
    }

    /// Where `decoded` differs from `original` (nil: the same graph, within what XML keeps; `exactly`: score and
    /// birthday too to the last bit).
    static func difference(_ decoded: [BenchPerson], _ original: [BenchPerson], exactly: Bool = false) -> String? {
        guard decoded.count == original.count else { return "it holds \(decoded.count) models, not \(original.count)" }
        for (a, b) in zip(decoded, original) {
            let friends = a.friends.map { ObjectIdentifier($0) }, expected = b.friends.map { ObjectIdentifier(decoded[$0.index]) }
            let scoreDiffers = exactly ? a.score.bitPattern != b.score.bitPattern : abs(a.score - b.score) > 1e-13 * abs(b.score)
            let birthdayDiffers = exactly ? a.birthday != b.birthday : abs(a.birthday.timeIntervalSince(b.birthday)) >= 1
            let field = a.index != b.index ? "index" : a.name != b.name ? "name" : a.age != b.age ? "age"
                : scoreDiffers ? "score" : birthdayDiffers ? "birthday"
                : a.tags != b.tags ? "tags" : a.avatar != b.avatar ? "avatar" : friends != expected ? "friends" : nil
            if let field { return "model \(b.index) differs in \(field)" }
        }
        return nil
    }
}
