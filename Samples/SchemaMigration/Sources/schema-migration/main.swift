// schema-migration: reads address books written by an older version of the model. Logic in SchemaMigration.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SchemaMigration

let outcome = MigrationCommand.run(arguments: Array(CommandLine.arguments.dropFirst()))
/// Writes all of `text` to a file descriptor (a closed pipe is not worth a crash or a message).
func writeAll(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}

signal(SIGPIPE, SIG_IGN)
writeAll(1, outcome.output)
writeAll(2, outcome.errors)
exit(outcome.status)
