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
import ArchiveDumpCore
import KeyedArchive

/// Where `plutil`'s results go and how they are encoded.
enum PlutilOutput {
    /// The bytes of `value` in `format`.
    /// - Parameters:
    ///   - sourcePath: the input file, which names a Swift or Objective-C literal's variable.
    ///   - destination: the output path (`-` for standard output), which an Objective-C literal imports as `.h`.
    ///   - objcHeader: the Objective-C header instead of the literal.
    /// - Throws: ``PlutilFailure`` when the format cannot hold the value (a UID in JSON, a set in XML...).
    static func encode(_ value: PropertyListValue, format: PlutilArguments.Format, readable: Bool, sourcePath: String,
                       destination: String, objcHeader: Bool) throws(PlutilFailure) -> Data {
        var formats = PlutilTextFormats()
        switch format {
        case .xml1, .binary1:
            do {
                return try value.propertyListData(format: format == .xml1 ? .xml : .binary)
            } catch {
                throw PlutilFailure("\(error)")
            }
        case .json: return Data(try formats.json(value, readable: readable).utf8)
        case .swift: return Data(try formats.swiftLiteral(value, fileName: sourcePath).utf8)
        case .objc:
            return Data(try formats.objcLiteral(value, fileName: sourcePath, outputPath: destination, header: objcHeader).utf8)
        case .raw: return Data(PlutilTextFormats.raw(value).utf8)
        case .typedJSON: return value.typedJSONData(prettyPrinted: readable)
        case .resolvedJSON:
            do {
                return try ArchivedObjectGraph(propertyList: value).resolvedJSONData(prettyPrinted: readable)
            } catch {
                throw PlutilFailure("resolved-json writes keyed archives only (typed-json writes any property list): \(error)")
            }
        }
    }

    /// The output path for the result of `path` in `format`: `-o`'s path; for `raw`, or standard input
    /// without `-o`, `nil` (standard output); else `path` itself, its extension replaced by `-e`'s, and by
    /// `swift` or `m` for the literals.
    static func destination(for path: String, format: PlutilArguments.Format, outputPath: String?, outputExtension: String?) -> String? {
        if let outputPath { return outputPath }
        if format == .raw || path == "-" { return nil }
        var result = path
        if let outputExtension { result = replacingExtension(of: result, with: outputExtension) }
        switch format {
        case .swift: result = replacingExtension(of: result, with: "swift")
        case .objc: result = replacingExtension(of: result, with: "m")
        default: break
        }
        return result
    }

    /// `path` with the text after its file name's last `.` replaced by `newExtension`; unchanged when the file
    /// name has no extension (`.profile` has none), as Apple's `plutil` does.
    static func replacingExtension(of path: String, with newExtension: String) -> String {
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        guard let dot = path[nameStart...].lastIndex(of: "."), dot != nameStart else { return path }
        return String(path[...dot]) + newExtension
    }

    /// Replaces the file at `path` with `bytes` atomically (``AtomicFileWriter``: the old file stays whole
    /// until the new one is complete, its permission bits kept). A device or FIFO that exists
    /// (`-o /dev/stdout`) cannot be replaced and is written directly.
    static func writeFile(_ bytes: Data, to path: String) throws(PlutilFailure) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFDIR {
            let file = open(path, O_WRONLY | O_TRUNC)
            guard file >= 0 else { throw PlutilFailure("cannot open \(path) for writing: \(String(cString: strerror(errno)))") }
            defer { close(file) }
            let out = DumpOutput.fileDescriptor(file)
            out.write(bytes: bytes)
            out.flush()
            if let failure = out.failure { throw PlutilFailure("cannot write \(path): \(failure.message)") }
            return
        }
        do {
            try AtomicFileWriter().write(bytes, toPath: path)
        } catch where error.step == .synchronizeDirectory {
            // The new contents are in place; only the durability of the directory entry is in doubt.
        } catch {
            throw PlutilFailure("(\(error))")
        }
    }

    /// Checks that showing `root` in full stays within a ``PropertyListExpansionBudget``, as every other
    /// output's walk does: a small binary file whose containers share children is refused.
    static func checkExpansion(_ root: PropertyListValue) throws(PlutilFailure) {
        var budget = PropertyListExpansionBudget()
        var pending = [root]
        while let value = pending.popLast() {
            let visited: Bool
            switch value {
            case .array(let elements), .set(let elements):
                visited = budget.visit(elements.elements)
                pending += elements
            case .dictionary(let d):
                visited = budget.visit(d.values, keys: d.keys)
                pending += d.values
            default:
                continue
            }
            guard visited else { throw PlutilTextFormats.overBudget }
        }
    }
}
