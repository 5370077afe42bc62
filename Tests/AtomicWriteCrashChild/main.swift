// atomic-write-crash-child: a helper process for KeyedArchiveTests' crash and umask tests.
//
//   atomic-write-crash-child loop <destination> <payload-a> <payload-b>
//       Reads the two payload files, then saves them to <destination> in turn with AtomicFileWriter,
//       starting with <payload-b>, forever; after each completed save it writes one byte to standard
//       output. The test kills it with SIGKILL at random moments.
//
//   atomic-write-crash-child write-once <destination> <umask in octal> <text>
//       Sets the umask, saves <text> to <destination> atomically, and exits 0 (1 on failure).

import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

func failAndExit(_ message: String) -> Never {
    var bytes = Array("atomic-write-crash-child: \(message)\n".utf8)
    _ = write(2, &bytes, bytes.count)
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "loop" where arguments.count == 4:
    let destination = arguments[1]
    let payloads: [[UInt8]]
    do {
        payloads = try [arguments[3], arguments[2]].map { Array(try FileReader().read(atPath: $0)) }
    } catch {
        failAndExit("\(error)")
    }
    var turn = 0
    var signal: UInt8 = 0x2E
    while true {
        do {
            try AtomicFileWriter().write(payloads[turn % 2], toPath: destination)
        } catch {
            failAndExit("\(error)")
        }
        turn += 1
        _ = write(1, &signal, 1)
    }

case "write-once" where arguments.count == 4:
    guard let mask = mode_t(arguments[2], radix: 8) else { failAndExit("bad umask \(arguments[2])") }
    umask(mask)
    do {
        try AtomicFileWriter().write(Array(arguments[3].utf8), toPath: arguments[1])
    } catch {
        failAndExit("\(error)")
    }
    exit(0)

default:
    failAndExit("usage: atomic-write-crash-child loop <destination> <payload-a> <payload-b>\n"
        + "       atomic-write-crash-child write-once <destination> <umask> <text>")
}
