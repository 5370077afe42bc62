import Foundation

/// What this machine takes to touch an archive's bytes once, with no parsing or formatting at all: the
/// floor under any reader or writer whose work grows with the bytes (issue #18's goal 1).
///
/// The archives grow faster than the models (4.6 MB at 20,000 models, 49.8 MB at 200,000: 10.8x, because
/// the names' numbers take a digit more, the offset table 4 bytes an object instead of 3, and more UIDs 4
/// bytes instead of 2: 17.7 bytes an object against 19.2), and the 20,000-model
/// archive fits in this machine's last-level cache while the 200,000-model one does not. These two floors
/// show what that does to a plain pass over the bytes, in the same processes as the reader and writer:
/// ``readPass()`` loads every 8-byte word of the archive (a sum, so that none of it can be left out), and
/// ``writePass()`` stores into every byte of a buffer of the archive's size that earlier runs already
/// touched (no page faults), as a writer's output does.
final class BytesFloor {
    private let bytes: Data
    private let output: UnsafeMutableRawBufferPointer
    private var pass: UInt8 = 0

    init(_ bytes: Data) {
        self.bytes = bytes
        output = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 64)
        output.initializeMemory(as: UInt8.self, repeating: 0)  // touched once here, outside every clock
    }

    deinit { output.deallocate() }

    /// The sum of the archive's 8-byte words (and of its last few bytes).
    func readPass() -> Int {
        bytes.withUnsafeBytes { raw in
            var sum: UInt64 = 0
            let words = raw.count / 8
            for index in 0 ..< words { sum &+= raw.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) }
            for index in words * 8 ..< raw.count { sum &+= UInt64(raw[index]) }
            return Int(truncatingIfNeeded: sum)
        }
    }

    /// Fills the output buffer with a byte that changes from run to run; returns one of the bytes written.
    func writePass() -> Int {
        pass &+= 1
        output.initializeMemory(as: UInt8.self, repeating: pass)
        return Int(output[output.count / 2])
    }
}
