import Foundation
import KeyedArchive

/// One 64 MiB data object: read and written by this package and by `PropertyListSerialization`, against
/// a plain memory copy of the same bytes between two buffers that are already touched (no page faults of
/// fresh memory in the copy, so "write at half of memcpy speed" compares with the memory's real speed).
///
/// Reading shares the input's bytes (the data value is a slice of the input), so it copies nothing.
struct DataBlobWorkload: Workload {
    var size = 64 << 20
    var name: String { "data-blob" }
    var summary: String { "one \(size >> 20) MiB data object, with a memcpy between already-touched buffers as the baseline" }

    func makeGroups() throws -> [BenchmarkGroup] {
        let blob = Data((0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let value = PropertyListValue.data(blob)
        let ourBytes = BinaryPropertyListWriter().write(value)
        let foundationBytes = try PropertyListSerialization.data(fromPropertyList: blob, format: .binary, options: 0)
        guard try BinaryPropertyListReader().read(foundationBytes) == value else {
            throw BenchError("our reader disagrees with Foundation's bytes")
        }
        let size = self.size
        // Both buffers are written once here, so the timed copies fault in no pages.
        let destination = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        destination.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        let source = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        blob.withUnsafeBytes { if let base = $0.baseAddress { source.copyMemory(from: base, byteCount: size) } }
        let memcpy = Operation("memcpy of \(size >> 20) MiB between touched buffers", id: "memcpy") {
            destination.copyMemory(from: source, byteCount: size)
            return Int(destination.load(fromByteOffset: size / 2, as: UInt8.self))
        }
        return [
            BenchmarkGroup("read", [
                Operation("KeyedArchive BinaryPropertyListReader", id: "read") {
                    guard case .data(let d) = keep(try BinaryPropertyListReader().read(ourBytes)) else { return 0 }
                    return d.count
                },
                Operation("Foundation PropertyListSerialization", id: "foundation-read", runs: (1, 0)) {
                    (keep(try PropertyListSerialization.propertyList(from: foundationBytes, options: [], format: nil)) as? Data)?.count ?? 0
                },
            ]),
            BenchmarkGroup("write", [
                Operation("KeyedArchive BinaryPropertyListWriter", id: "write") { keep(BinaryPropertyListWriter().write(value)).count },
                Operation("Foundation PropertyListSerialization", id: "foundation-write", runs: (1, 0)) {
                    keep(try PropertyListSerialization.data(fromPropertyList: blob, format: .binary, options: 0)).count
                },
                memcpy,
            ]),
        ]
    }
}
