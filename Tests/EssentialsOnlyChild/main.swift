// essentials-only-child: decodes archives in a process that links FoundationEssentials but not Foundation or
// FoundationInternationalization, as a server that imports only KeyedArchive does. KeyedArchiveTests runs it.
//
//   essentials-only-child calendar <archive>
//       Prints `internationalization: yes|no` (whether FoundationInternationalization is loaded), then decodes
//       the archive's root as a Calendar and prints `calendar <identifier>`, or `error <code>: <description>`
//       when the decode throws. Exits 0 either way: a crash is what the test looks for.

import KeyedArchive
// Linux has FoundationEssentials as a module of its own; on Apple platforms (where the suite that runs this
// child is disabled) Foundation is part of the system and always loaded whole.
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

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, arguments[0] == "calendar" else {
    print("usage: essentials-only-child calendar <archive>")
    exit(64)
}
print("internationalization: \(_typeByName("FoundationInternationalization._CalendarICU") == nil ? "no" : "yes")")
do {
    let data = try FileReader().read(atPath: arguments[1])
    let calendar = try KeyedUnarchiver.unarchivedObject(ofClass: Calendar.self, from: data)
    print("calendar \(calendar.identifier)")
} catch let error as KeyedArchiveError {
    print("error \(error.code): \(error)")
} catch {
    print("error \(error)")
}
