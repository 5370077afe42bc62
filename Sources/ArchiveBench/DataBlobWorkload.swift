import Foundation
import KeyedArchive

/// One 64 MiB data object: read and written by this package and by `PropertyListSerialization`, against
/// a plain memory copy of the same bytes into a fresh buffer (the floor for any reader or writer that
/// returns its own copy).
struct DataBlobWorkload: Workload {
    var size = 64 << 20
    var name: String { "data-blob" }
    var summary: String { "one \(size >> 20) MiB data object, with a memcpy of the same bytes as the baseline" }

    func makeGroups() throws -> [BenchmarkGroup] {
        let blob = Data((0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let value = PropertyListValue.data(blob)
        let ourBytes = BinaryPropertyListWriter().write(value)
        let foundationBytes = try PropertyListSerialization.data(fromPropertyList: blob, format: .binary, options: 0)
        guard try BinaryPropertyListReader().read(foundationBytes) == value else {
            throw BenchError("our reader disagrees with Foundation's bytes")
        }
        let size = self.size
        let memcpy = Operation("memcpy of \(size >> 20) MiB into a new buffer") {
            blob.withUnsafeBytes { source in
                let destination = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                defer { destination.deallocate() }
                if let base = source.baseAddress { destination.copyMemory(from: base, byteCount: size) }
                return Int(destination.load(fromByteOffset: size / 2, as: UInt8.self))
            }
        }
        return [
            BenchmarkGroup("read", [
                Operation("KeyedArchive BinaryPropertyListReader") {
                    guard case .data(let d) = keep(try BinaryPropertyListReader().read(ourBytes)) else { return 0 }
                    return d.count
                },
                Operation("Foundation PropertyListSerialization") {
                    (keep(try PropertyListSerialization.propertyList(from: foundationBytes, options: [], format: nil)) as? Data)?.count ?? 0
                },
                memcpy,
            ]),
            BenchmarkGroup("write", [
                Operation("KeyedArchive BinaryPropertyListWriter") { keep(BinaryPropertyListWriter().write(value)).count },
                Operation("Foundation PropertyListSerialization") {
                    keep(try PropertyListSerialization.data(fromPropertyList: blob, format: .binary, options: 0)).count
                },
                memcpy,
            ]),
        ]
    }
}
