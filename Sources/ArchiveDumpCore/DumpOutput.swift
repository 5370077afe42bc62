#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered byte sink for the renderers: output is streamed in chunks rather than built as one String.
///
/// The sink closure receives each full chunk; ``flush()`` sends the rest. After the sink fails once,
/// further output is dropped and ``failure`` says why (for example a closed pipe).
package final class DumpOutput {
    private var buffer: [UInt8] = []
    private let chunkSize: Int
    private let sink: ([UInt8]) -> Int32
    /// Set when the sink refused a chunk; output after that is dropped.
    package private(set) var failure: Failure?

    /// Why output could not be written.
    package struct Failure: Sendable, Equatable {
        /// The `errno` the sink reported (0 when unknown).
        package var code: Int32
        /// A one-line explanation.
        package var message: String
        /// Whether the reader closed the pipe (`EPIPE`).
        package var isBrokenPipe: Bool { code == EPIPE }
    }
    /// The number of newline characters written so far (the renderers use it to cite line numbers).
    package private(set) var linesWritten = 0

    /// An output that hands chunks of about `chunkSize` bytes to `sink`, which returns 0 on success or
    /// an `errno` value (or -1) on failure.
    package init(chunkSize: Int = 1 << 16, sink: @escaping ([UInt8]) -> Int32) {
        self.chunkSize = max(chunkSize, 1)
        self.sink = sink
        buffer.reserveCapacity(self.chunkSize + 1024)
    }

    /// An output that writes to a file descriptor (1 for standard output).
    package static func fileDescriptor(_ fd: Int32) -> DumpOutput {
        DumpOutput { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBufferPointer { p -> Int in
                    guard let base = p.baseAddress else { return 0 }
                    return systemWrite(fd, base + offset, p.count - offset)
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                offset += n
            }
            return 0
        }
    }

    /// Whether writing has failed (renderers stop early when it has).
    package var hasFailed: Bool { failure != nil }

    /// Appends the UTF-8 bytes of `text`.
    package func write(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            var newlines = 0
            for byte in utf8 where byte == 0x0A { newlines += 1 }
            linesWritten += newlines
            buffer.append(contentsOf: utf8)
        }
        if buffer.count >= chunkSize { flush() }
    }

    /// Appends `s` quoted and escaped as the text outputs show strings (see ``ValueFormatting/quoted(_:)``).
    package func writeQuoted(_ s: String) {
        ValueFormatting.appendEscaped(s, json: false, to: &buffer)
        if buffer.count >= chunkSize { flush() }
    }

    /// Appends `s` as a JSON string literal (see ``ValueFormatting/jsonString(_:)``).
    package func writeJSONString(_ s: String) {
        ValueFormatting.appendEscaped(s, json: true, to: &buffer)
        if buffer.count >= chunkSize { flush() }
    }

    /// Appends raw bytes (binary output).
    package func write(bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= chunkSize { flush() }
    }

    /// The number of bytes written so far (sent to the sink or buffered).
    package var bytesWritten: Int { flushedByteCount + buffer.count }
    private var flushedByteCount = 0

    /// Sends everything buffered to the sink.
    package func flush() {
        guard !buffer.isEmpty else { return }
        flushedByteCount += buffer.count
        if failure == nil {
            let code = sink(buffer)
            if code != 0 {
                let reason = code > 0 ? String(cString: strerror(code)) : "the output was refused"
                failure = Failure(code: code, message: "cannot write the output: \(reason)")
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The POSIX `write(2)`, named apart from ``DumpOutput/write(_:)``.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// A text collector for tests and callers that want the output in memory.
package final class DumpOutputCollector {
    /// Everything written so far, as bytes.
    package private(set) var bytes: [UInt8] = []
    /// An output that appends here.
    package private(set) lazy var output: DumpOutput = DumpOutput { [unowned self] chunk in
        self.bytes.append(contentsOf: chunk)
        return 0
    }

    /// A new, empty collector.
    package init() {}

    /// Everything written so far, decoded as UTF-8 (flushes first).
    package var text: String {
        output.flush()
        return String(decoding: bytes, as: UTF8.self)
    }
}
