#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive

extension ArchiveDumpCommand {
    /// Writes what `render` writes to `path`, or to `standardOutput` when `path` is nil, and flushes it.
    ///
    /// - Parameters:
    ///   - path: the `-o` file, or nil for standard output.
    ///   - standardOutput: standard output.
    ///   - errors: standard error, where a failed open or write is reported.
    ///   - body: writes the output; returns the exit status of a failure whose message it wrote, else nil.
    /// - Returns: the exit status: 0, or the failure's (1).
    static func writeOutput(toPath path: String?, standardOutput output: DumpOutput, errors: DumpOutput,
                            _ body: (DumpOutput) -> Int32?) -> Int32 {
        func render(to out: DumpOutput) -> Int32? {
            body(out) ?? finish(out, errors: errors)
        }
        // Where the output goes. A regular file (new or existing) is replaced with AtomicFileWriter: the
        // output streams into a temporary file beside it, renamed over it once complete, so a failure
        // leaves the old file as it was. A device or FIFO that exists (`-o /dev/stdout`) cannot be
        // replaced atomically and is written directly, as standard output is.
        guard let path else { return render(to: output) ?? exitSuccess }
        if isExistingSpecialFile(path) {
            let file = open(path, O_WRONLY | O_TRUNC)
            guard file >= 0 else {
                let reason = String(cString: strerror(errno))
                errors.write("Error: \(ValueFormatting.printable(path)): cannot open for writing: \(reason)\n")
                return exitFailure
            }
            defer { close(file) }
            return render(to: DumpOutput.fileDescriptor(file)) ?? exitSuccess
        }
        do {
            try AtomicFileWriter(newFilePermissions: 0o644).write(toPath: path) { write in try withoutActuallyEscaping(write) { write in
                var writeError: FileIOError?
                let out = DumpOutput { chunk in
                    do {
                        try chunk.withUnsafeBytes { try write($0) }
                        return 0
                    } catch {
                        writeError = error as? FileIOError
                        return writeError?.errno ?? EIO
                    }
                }
                let failure = render(to: out)
                if let writeError { throw writeError }
                if let failure { throw DumpFailed(status: failure) }
            } }
        } catch let failed as DumpFailed {
            return failed.status  // reported; the old file is kept
        } catch let error as FileIOError where error.step == .synchronizeDirectory {
            // The new contents are in place; only the directory entry's durability is in doubt.
        } catch let error as FileIOError {
            let opening: [FileIOError.Step] = [.validatePath, .resolveSymbolicLink, .openDirectory, .createTemporaryFile]
            let what = opening.contains(error.step) ? "cannot open for writing" : "cannot write the output"
            errors.write("Error: \(ValueFormatting.printable(path)): \(what): \(error.reason)\n")
            return exitFailure
        } catch {
            errors.write("Error: \(ValueFormatting.printable(path)): cannot write the output: \(error)\n")
            return exitFailure
        }
        return exitSuccess
    }

    /// Flushes `out`; the exit status of a failed write (its message written to `errors`), else nil.
    static func finish(_ out: DumpOutput, errors: DumpOutput) -> Int32? {
        out.flush()
        if let failure = out.failure {
            // A reader that went away (`archive-dump big.plist | head`) is not worth a message.
            if !failure.isBrokenPipe { errors.write("Error: \(failure.message)\n") }
            return exitFailure
        }
        return nil
    }

    /// A dump that failed after the output file was opened (its message already written): the atomic
    /// write is abandoned, so the old file stays.
    private struct DumpFailed: Error {
        let status: Int32
    }

    /// Whether `path` names an existing file that is neither a regular file nor a directory (a device,
    /// a FIFO, a socket), following symbolic links.
    private static func isExistingSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }
}
