#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Testing
@testable import KeyedArchive

/// A nested Codable value (a struct that is no ``ArchiveValue``) is read apart from the plain fields
/// (`CodableArchiving.decodeNested`): its round trip, and the coding path and archive error of a failure inside it.
@Suite struct NestedCodableValueDecodingTests {
    private func xml(_ holder: CHolderWithPoint) throws -> String {
        String(decoding: try KeyedArchiver.archivedData(withRootObject: holder, format: .xml), as: UTF8.self)
    }

    @Test func nestedStructRoundTripsBesideItsHolder() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CHolderWithPoint(item: CPoint(x: -3, y: 7)))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: data)
        #expect(back.item.x == -3)
        #expect(back.item.y == 7)
    }

    @Test func missingFieldOfANestedStructNamesTheOuterAndInnerKeys() throws {
        let text = try xml(CHolderWithPoint(item: CPoint(x: 1, y: 2)))
        #expect(text.contains("<key>y</key>"))
        let broken = Data(text.replacingOccurrences(of: "<key>y</key>", with: "<key>z</key>").utf8)
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: broken) }
        guard case .keyNotFound(let key, let context)? = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "y")
        #expect(context.codingPath.map(\.stringValue) == ["item"])
        #expect((context.underlyingError as? KeyedArchiveError)?.code == .keyNotFound)
    }

    @Test func mistypedFieldOfANestedStructIsATypeMismatchAtItsFullPath() throws {
        let text = try xml(CHolderWithPoint(item: CPoint(x: 1, y: 2)))
        // x holds a string instead of an integer.
        let field = try Regex(#"<key>x</key>\s*<integer>1</integer>"#)
        let broken = Data(text.replacing(field, with: "<key>x</key><string>one</string>").utf8)
        #expect(broken != Data(text.utf8))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: broken) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["item", "x"])
        #expect(context.underlyingError is KeyedArchiveError)
    }
}
