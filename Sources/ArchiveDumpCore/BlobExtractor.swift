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

/// `--extract <dir>`: writes blobs into one directory, each named by its path in the archive and given the
/// extension its first bytes announce.
///
/// Names come from archive content, so they are made safe before use: only ASCII letters, digits, `.`, `_`
/// and `-` are kept (anything else, `/` included, becomes `_`), no name starts with `.`, names are at most
/// 120 bytes, and each file is created inside the directory with `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`,
/// so an archive can neither name a file outside it nor write through a link nor replace a file (an
/// existing name gets `-2`, `-3`... instead).
package struct BlobExtractor {
    /// The directory the files go into; it must exist.
    package let directory: String

    /// An extractor into `directory`.
    package init(directory: String) {
        self.directory = directory
    }

    /// A file written.
    package struct WrittenFile: Equatable, Sendable {
        /// Its name in the directory.
        package var name: String
        /// The path of the blob in the archive.
        package var path: ForensicPath
        /// The extension chosen from its first bytes (`bin` when none was recognized).
        package var type: String
        /// Its length in bytes.
        package var length: Int

        /// `{"file": name, "type": ext, "length": n, "path": archive path}`.
        package var jsonLine: String {
            "{\"file\":" + ValueFormatting.jsonString(name) + ",\"type\":" + ValueFormatting.jsonString(type)
                + ",\"length\":\(length),\"path\":" + ValueFormatting.jsonString(path.description) + "}"
        }
    }

    /// A failure to open the directory or to write a file, naming which and why.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The most names tried for one blob (`name`, `name-2`, ...) before giving up.
    static let maximumAttempts = 1000

    /// Writes each blob to its own new file.
    ///
    /// - Returns: the files written, in the order of `blobs`.
    /// - Throws: ``Failure`` when the directory cannot be opened or a file cannot be created or written.
    package func write(_ blobs: [(path: ForensicPath, bytes: Data)]) throws -> [WrittenFile] {
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY)
        guard directoryDescriptor >= 0 else {
            throw Failure(description: "cannot open the directory: " + String(cString: strerror(errno)))
        }
        defer { close(directoryDescriptor) }
        var written: [WrittenFile] = []
        for blob in blobs {
            let type = Self.fileExtension(of: blob.bytes)
            let base = Self.safeName(blob.path.description)
            var created: (name: String, descriptor: Int32)?
            for attempt in 1...Self.maximumAttempts {
                let name = base + (attempt == 1 ? "" : "-\(attempt)") + "." + type
                let descriptor = openat(directoryDescriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644)
                if descriptor >= 0 {
                    created = (name, descriptor)
                    break
                }
                if errno != EEXIST {
                    throw Failure(description: ValueFormatting.printable(name) + ": cannot create: " + String(cString: strerror(errno)))
                }
            }
            guard let created else {
                throw Failure(description: ValueFormatting.printable(base) + ": \(Self.maximumAttempts) files of that name exist")
            }
            defer { close(created.descriptor) }
            try blob.bytes.withUnsafeBytes { buffer in
                var done = 0
                while done < buffer.count {
                    guard let start = buffer.baseAddress else { return }
                    let count = Self.writeBytes(created.descriptor, start + done, buffer.count - done)
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else {
                        throw Failure(description: ValueFormatting.printable(created.name) + ": cannot write: " + String(cString: strerror(errno)))
                    }
                    done += count
                }
            }
            written.append(WrittenFile(name: created.name, path: blob.path, type: type, length: blob.bytes.count))
        }
        return written
    }

    /// `text` as a file name that stays in its directory: see the type's description.
    package static func safeName(_ text: String) -> String {
        var name = ""
        var lastWasReplaced = false
        for byte in text.utf8 {
            let kept = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
            if kept {
                name.append(Character(UnicodeScalar(byte)))
                lastWasReplaced = false
            } else if !lastWasReplaced {
                name.append("_")
                lastWasReplaced = true
            }
        }
        while name.hasPrefix(".") || name.hasPrefix("_") { name.removeFirst() }
        while name.hasSuffix("_") { name.removeLast() }
        if name.utf8.count > 120 { name = String(name.prefix(120)) }
        return name.isEmpty ? "blob" : name
    }

    /// The extension a blob's first bytes announce: the payload formats this package reads, and the common
    /// file signatures (each format's own magic number); `bin` for anything else.
    package static func fileExtension(of bytes: Data) -> String {
        switch PayloadFormat.sniff(bytes) {
        case .binaryPropertyList, .xmlPropertyList, .keyedArchive: return "plist"
        case .typedstream: return "typedstream"
        case nil: break
        }
        let signatures: [(bytes: [UInt8], at: Int, type: String)] = [
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], 0, "png"), ([0xFF, 0xD8, 0xFF], 0, "jpg"),
            (Array("GIF87a".utf8), 0, "gif"), (Array("GIF89a".utf8), 0, "gif"), (Array("%PDF-".utf8), 0, "pdf"),
            ([0x50, 0x4B, 0x03, 0x04], 0, "zip"), ([0x1F, 0x8B], 0, "gz"), (Array("SQLite format 3\0".utf8), 0, "sqlite"),
            (Array("ftypheic".utf8), 4, "heic"), (Array("ftypheix".utf8), 4, "heic"), (Array("ftypmif1".utf8), 4, "heic"),
            (Array("ftypqt  ".utf8), 4, "mov"), (Array("ftyp".utf8), 4, "mp4"), (Array("WEBP".utf8), 8, "webp"),
            ([0x49, 0x49, 0x2A, 0x00], 0, "tiff"), ([0x4D, 0x4D, 0x00, 0x2A], 0, "tiff"), (Array("book".utf8) + [0, 0, 0, 0], 0, "bookmark"),
            (Array("{\\rtf".utf8), 0, "rtf"), (Array("OggS".utf8), 0, "ogg"), (Array("ID3".utf8), 0, "mp3"),
            (Array("caff".utf8), 0, "caf"), ([0xCA, 0xFE, 0xBA, 0xBE], 0, "macho"), ([0xCF, 0xFA, 0xED, 0xFE], 0, "macho"),
        ]
        for signature in signatures where bytes.count >= signature.at + signature.bytes.count {
            let start = bytes.startIndex + signature.at
            if bytes[start ..< start + signature.bytes.count].elementsEqual(signature.bytes) { return signature.type }
        }
        return "bin"
    }

    /// `write(2)`, named apart from the methods called `write`.
    private static func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.write(descriptor, bytes, count)
        #elseif canImport(Musl)
        return Musl.write(descriptor, bytes, count)
        #else
        return Darwin.write(descriptor, bytes, count)
        #endif
    }
}
