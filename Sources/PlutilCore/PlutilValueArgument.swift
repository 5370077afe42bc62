#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The value of `-insert` and `-replace`: its type option (`-bool`, `-integer`, ...) and, except for
/// `-array` and `-dictionary`, the text after it.
enum PlutilValueArgument {
    /// The type options, in the order the help lists them.
    static let typeOptions = ["-bool", "-integer", "-float", "-string", "-date", "-data", "-xml", "-json", "-array", "-dictionary"]

    /// Whether `typeOption` takes a value argument.
    static func takesValue(_ typeOption: String) -> Bool {
        typeOption != "-array" && typeOption != "-dictionary"
    }

    /// The property-list value `text` stands for as a `typeOption` value.
    ///
    /// `-bool` is true for `YES` or `true` in any case and false for anything else, as Apple documents it.
    /// `-integer` and `-float` must be a whole number in the 64-bit range (signed or unsigned) and a number
    /// Swift's `Double` reads; `-date` is read as an XML property list's `<date>`; `-data` is base64
    /// (characters outside the alphabet ignored); `-xml` is a property list (XML or binary), `-json` a JSON
    /// value.
    /// - Throws: ``PlutilFailure`` naming the option and what was wrong with the text.
    static func value(typeOption: String, text: String) throws(PlutilFailure) -> PropertyListValue {
        switch typeOption {
        case "-bool":
            let lowered = text.lowercased()
            return .bool(lowered == "yes" || lowered == "true")
        case "-integer":
            let digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
            if let signed = Int64(digits) { return .integer(PropertyListInteger(signed)) }
            if let unsigned = UInt64(digits), let value = PropertyListValue.integer(exactly: unsigned) { return value }
            throw PlutilFailure("-integer: '\(text)' is not an integer in the 64-bit range")
        case "-float":
            guard let real = Double(text) else { throw PlutilFailure("-float: '\(text)' is not a number") }
            return .real(real)
        case "-string":
            return .string(text)
        case "-date":
            // Read exactly as a property list's <date> is read; markup in the text would change the document.
            guard !text.contains("<"), !text.contains("&"),
                  case .date(let date)? = try? PropertyListValue(propertyListData: Data("<plist><date>\(text)</date></plist>".utf8))
            else {
                throw PlutilFailure("-date: '\(text)' is not a date as property lists write it (such as 2024-05-01T10:00:00Z)")
            }
            return .date(date)
        case "-data":
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw PlutilFailure("Invalid base64 data in argument")
            }
            return .data(data)
        case "-xml":
            // An XML or binary property list only: the library's reader also takes OpenStep text, which
            // would make any word (`garbage`) a string.
            guard PropertyListValue.detectFormat(of: Data(text.utf8)) != nil else {
                throw PlutilFailure("Unable to parse xml property list: the value is not an XML or binary property list")
            }
            do {
                return try PropertyListValue(propertyListData: Data(text.utf8))
            } catch {
                throw PlutilFailure("Unable to parse xml property list: \(error)")
            }
        case "-json":
            do {
                return try PlutilDocument.json(Data(text.utf8))
            } catch {
                throw PlutilFailure("Unable to parse JSON: \(error.message)")
            }
        case "-array":
            return .array([])
        case "-dictionary":
            return .dictionary([:])
        default:
            throw PlutilFailure("Unknown insert or replace type \(typeOption)")
        }
    }
}
