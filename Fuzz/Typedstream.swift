// libFuzzer target: the typedstream (NSArchiver) reader, writer and Foundation values.
//
// Properties checked: reading ends in a TypedstreamArchive or a thrown TypedstreamError; an archive that was
// read is written without error, the written bytes read back to an archive with the same tables, and
// writing that again gives the same bytes (the writer is deterministic and loses nothing it read);
// making Foundation values of every top-level value ends in values or a TypedstreamError.
// Any other outcome is a finding.
//
// Build and run with Scripts/fuzz.sh typedstream SECONDS.

import Foundation
import KeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTypedstream(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    var limits = KeyedUnarchiver.Limits()
    limits.maximumDepth = 256
    limits.maximumObjectCount = 1 << 16
    let archive: TypedstreamArchive
    do {
        archive = try TypedstreamArchive(data: data, limits: limits)
    } catch {
        return 0
    }
    let written: Data
    do {
        written = try archive.encodedData()
    } catch {
        fuzzViolation("the writer rejects an archive the reader made: \(error)")
    }
    let reread: TypedstreamArchive
    do {
        reread = try TypedstreamArchive(data: written, limits: limits)
    } catch {
        fuzzViolation("the reader rejects the writer's output: \(error)")
    }
    guard reread.classes == archive.classes, reread.objects.count == archive.objects.count,
          reread.groups.count == archive.groups.count, reread.byteOrder == archive.byteOrder,
          reread.systemVersion == archive.systemVersion
    else {
        fuzzViolation("read -> write -> read changed the tables (\(archive.objects.count) objects, \(archive.classes.count) classes)")
    }
    do {
        guard try reread.encodedData() == written else { fuzzViolation("the writer is not deterministic") }
    } catch {
        fuzzViolation("the writer rejects its own re-read output: \(error)")
    }
    var unarchiver = TypedstreamUnarchiver()
    unarchiver.limits = limits
    do {
        _ = try unarchiver.foundationValues(of: archive.groups.flatMap(\.values), in: archive)
    } catch {
        // A TypedstreamError (typed throws): a class with no Foundation value, a cycle, a limit.
    }
    return 0
}
