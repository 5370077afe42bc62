import Foundation
import Testing
@testable import KeyedArchive

// The Codable adapter reads arrays of strings and of class models (`[String]`, `[Card]` fields) with the
// unarchiver's decoder directly (`decodeCodableStringArray`, `decodeCodableInstanceArray`), where other arrays go
// through the element wrapper (`Array.decodeArchiveCollection`, one `CodableDecodedElement` per element). These
// tests read the same archives both ways, each in an unarchive of its own, and compare what comes back: the
// values, or the error with its coding path, message and underlying archive error.

private let probeClassName = "CodableArrayReadingTests.Probe"

/// A class model, the element of the arrays read directly.
final class ProbeCard: ArchivableCodable, Equatable {
    var name: String
    init(_ name: String) { self.name = name }
    static func == (a: ProbeCard, b: ProbeCard) -> Bool { a.name == b.name }
}

/// Another class model, not allowed where a `ProbeCard` is read.
final class ProbeTicket: ArchivableCodable {
    var name: String
    init(_ name: String) { self.name = name }
}

/// The archived object the probes read: `items` under the probes' class name, as a Codable model writes it.
struct ProbeItems<Item: Codable>: ArchivableCodable {
    static var archivedClassName: String { probeClassName }
    var items: Item
}

/// How a probe reads `items`.
enum ProbeRead {
    /// As the Codable adapter reads a field (`CodableArchiving.decode`).
    case adapter
    /// Through the element wrapper, with the error conversion `CodableArchiving.decode` gives a collection.
    case wrapped
}

struct ProbeReadError: Error {}

/// Reads `items` of the probe object as `[Element]` one way (``ProbeRead``), keeping what the read returned or threw.
class ArrayReadProbe<Element: Decodable>: KeyedArchivable {
    class var read: ProbeRead { .adapter }
    class var archivedClassName: String { probeClassName }
    let outcome: Result<[Element], any Error>

    required init(from decoder: any ArchiveDecoder) throws {
        switch Self.read {
        case .adapter:
            outcome = Result { try CodableArchiving.decode([Element].self, from: decoder, forKey: "items", codingPath: []) }
        case .wrapped:
            outcome = Result {
                do { return try [Element].decodeArchiveCollection(from: decoder, forKey: "items") } catch {
                    throw CodableArchiving.decodingError(error, type: [Element].self, key: nil, codingPath: [], prefix: true)
                }
            }
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws { throw ProbeReadError() }
}

final class AdapterStringsProbe: ArrayReadProbe<String> {}
final class WrappedStringsProbe: ArrayReadProbe<String> { override class var read: ProbeRead { .wrapped } }
final class AdapterCardsProbe: ArrayReadProbe<ProbeCard> {}
final class WrappedCardsProbe: ArrayReadProbe<ProbeCard> { override class var read: ProbeRead { .wrapped } }

@Suite struct CodableArrayReadingTests {
    /// An unarchiver with at most `elements` collection elements, or the default limits.
    private func unarchiver(elements: Int? = nil) -> KeyedUnarchiver {
        var unarchiver = KeyedUnarchiver()
        if let elements { unarchiver.limits.maximumElementCount = elements }
        return unarchiver
    }

    /// Reads `data` with both probes, each in an unarchive of its own, and checks that they agree.
    @discardableResult
    private func readBothWays<Element: Equatable, Adapter: ArrayReadProbe<Element>, Wrapped: ArrayReadProbe<Element>>(
        _ data: Data, _ adapter: Adapter.Type, _ wrapped: Wrapped.Type, elements: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation) throws -> Result<[Element], any Error>
    {
        let direct = try unarchiver(elements: elements).decode(Adapter.self, from: data).outcome
        let viaWrapper = try unarchiver(elements: elements).decode(Wrapped.self, from: data).outcome
        switch (direct, viaWrapper) {
        case (.success(let a), .success(let b)):
            #expect(a == b, sourceLocation: sourceLocation)
        case (.failure(let a), .failure(let b)):
            #expect(String(reflecting: a) == String(reflecting: b), sourceLocation: sourceLocation)
            #expect(codingPath(a) == codingPath(b), sourceLocation: sourceLocation)
        default:
            Issue.record("one read succeeded, the other failed: \(direct) vs \(viaWrapper)", sourceLocation: sourceLocation)
        }
        return direct
    }

    private func codingPath(_ error: any Error) -> [String]? {
        (error as? DecodingError)?.context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }

    private func xml<Item: Codable>(_ items: Item) throws -> String {
        String(decoding: try KeyedArchiver.archivedData(withRootObject: ProbeItems(items: items), format: .xml), as: UTF8.self)
    }

    private func archive<Item: Codable>(_ items: Item) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: ProbeItems(items: items))
    }

    @Test func stringsReadTheSameValues() throws {
        let outcome = try readBothWays(try archive(["a", "bé", "", String(repeating: "long ", count: 20)]),
                                       AdapterStringsProbe.self, WrappedStringsProbe.self)
        #expect(try outcome.get() == ["a", "bé", "", String(repeating: "long ", count: 20)])
        #expect(try readBothWays(try archive([String]()), AdapterStringsProbe.self, WrappedStringsProbe.self).get().isEmpty)
    }

    @Test func aStringElementOfTheWrongTypeFailsAlikeAtItsIndex() throws {
        let damaged = try xml(["a", "needle", "c"]).replacingOccurrences(of: "<string>needle</string>", with: "<integer>7</integer>")
        let outcome = try readBothWays(Data(damaged.utf8), AdapterStringsProbe.self, WrappedStringsProbe.self)
        guard case .failure(let error) = outcome, case .typeMismatch(let type, let context)? = error as? DecodingError else {
            Issue.record("expected typeMismatch, got \(outcome)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(codingPath(error) == ["root", "items", "1"])
        #expect((context.underlyingError as? KeyedArchiveError)?.keyPath == "root.items[1]")
    }

    @Test func aNullStringElementFailsAlike() throws {
        let outcome = try readBothWays(try archive(["a", nil] as [String?]), AdapterStringsProbe.self, WrappedStringsProbe.self)
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(codingPath(error) == ["root", "items", "1"])
    }

    @Test func aValueThatIsNoArrayFailsAlike() throws {
        let outcome = try readBothWays(try archive("not an array"), AdapterStringsProbe.self, WrappedStringsProbe.self)
        guard case .failure(let error) = outcome, case .typeMismatch(let type, let context)? = error as? DecodingError else {
            Issue.record("expected typeMismatch, got \(outcome)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier([String].self))
        #expect(codingPath(error) == [])
        #expect((context.underlyingError as? KeyedArchiveError)?.code == .typeMismatch)
        try readBothWays(try archive(ProbeCard("a")), AdapterCardsProbe.self, WrappedCardsProbe.self)
        try readBothWays(try archive(["a": "b"]), AdapterStringsProbe.self, WrappedStringsProbe.self)
    }

    @Test func aMissingKeyFailsAlike() throws {
        let renamed = try xml(["a"]).replacingOccurrences(of: "<key>items</key>", with: "<key>itemz</key>")
        let outcome = try readBothWays(Data(renamed.utf8), AdapterStringsProbe.self, WrappedStringsProbe.self)
        #expect(throws: DecodingError.self) { try outcome.get() }
    }

    @Test func theElementLimitHoldsAlike() throws {
        let data = try archive(["a", "b", "c"])
        // The probe object itself counts no elements: 3 fit, 2 do not.
        #expect(try readBothWays(data, AdapterStringsProbe.self, WrappedStringsProbe.self, elements: 3).get().count == 3)
        let outcome = try readBothWays(data, AdapterStringsProbe.self, WrappedStringsProbe.self, elements: 2)
        guard case .failure(let error) = outcome, case .dataCorrupted(let context)? = error as? DecodingError else {
            Issue.record("expected dataCorrupted, got \(outcome)")
            return
        }
        #expect((context.underlyingError as? KeyedArchiveError)?.code == .limitExceeded)
        let cards = try archive([ProbeCard("a"), ProbeCard("b")])
        try readBothWays(cards, AdapterCardsProbe.self, WrappedCardsProbe.self, elements: 1)
    }

    @Test func classModelsReadTheSameValuesAndKeepSharing() throws {
        let shared = ProbeCard("shared")
        let outcome = try readBothWays(try archive([ProbeCard("a"), shared, ProbeCard("b"), shared]),
                                       AdapterCardsProbe.self, WrappedCardsProbe.self)
        let cards = try outcome.get()
        #expect(cards.map(\.name) == ["a", "shared", "b", "shared"])
        #expect(cards[1] === cards[3])
    }

    @Test func anElementOfAClassNotAllowedFailsAlikeBeforeItIsMade() throws {
        let outcome = try readBothWays(try archive([CardOrTicket.card(ProbeCard("a")), .ticket(ProbeTicket("t"))]),
                                       AdapterCardsProbe.self, WrappedCardsProbe.self)
        guard case .failure(let error) = outcome, case .typeMismatch(let type, let context)? = error as? DecodingError else {
            Issue.record("expected typeMismatch, got \(outcome)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(ProbeCard.self))
        #expect(codingPath(error) == ["root", "items", "1"])
        let underlying = try #require(context.underlyingError as? KeyedArchiveError)
        #expect(underlying.code == .classNotAllowed)
        #expect(underlying.className == String(reflecting: ProbeTicket.self))
    }

    @Test func aFailureInsideAnElementKeepsItsOwnCodingPath() throws {
        let damaged = try xml([ProbeCard("a"), ProbeCard("b")]).replacingOccurrences(of: "<key>name</key>", with: "<key>nom</key>")
        let outcome = try readBothWays(Data(damaged.utf8), AdapterCardsProbe.self, WrappedCardsProbe.self)
        guard case .failure(let error) = outcome, case .keyNotFound(let key, _)? = error as? DecodingError else {
            Issue.record("expected keyNotFound, got \(outcome)")
            return
        }
        #expect(key.stringValue == "name")
        #expect(codingPath(error) == ["root", "items", "0"])
    }

    @Test func aStringWhereACardIsExpectedFailsAlike() throws {
        let outcome = try readBothWays(try archive(["a"]), AdapterCardsProbe.self, WrappedCardsProbe.self)
        #expect(codingPath(try #require(outcome.failureValue)) == ["root", "items", "0"])
    }

    @Test func onlyArraysOfClassModelsAreReadDirectly() {
        #expect(CodableDecodingKind([ProbeCard].self).instanceArray.map { ObjectIdentifier($0.element) } == ObjectIdentifier(ProbeCard.self))
        #expect(CodableDecodingKind([ProbeCard].self).instanceArray?.expected == "an array of CodableDecodedElement<ProbeCard>")
        #expect(CodableDecodingKind([EBook].self).instanceArray == nil)  // a struct model
        #expect(CodableDecodingKind([ProbeCard?].self).instanceArray == nil)
        #expect(CodableDecodingKind([[ProbeCard]].self).instanceArray == nil)
        #expect(CodableDecodingKind(Set<String>.self).instanceArray == nil)
        #expect(CodableDecodingKind(ProbeCard.self).instanceArray == nil)
    }

    @Test func onlyArraysOfClassModelsAreWrittenAsArraysOfTheirElementType() throws {
        #expect(CodableEncodingKind([ProbeCard].self).instanceArrayElement.map(ObjectIdentifier.init) == ObjectIdentifier(ProbeCard.self))
        #expect(CodableEncodingKind([EBook].self).instanceArrayElement == nil)
        #expect(CodableEncodingKind([ProbeCard?].self).instanceArrayElement == nil)
        #expect(CodableEncodingKind([[ProbeCard]].self).instanceArrayElement == nil)
        #expect(CodableEncodingKind(ProbeCard.self).instanceArrayElement == nil)
        // Such an array is written as the hand-written coding writes an array of models.
        let cards = [ProbeCard("a"), ProbeCard("b")]
        let written = try KeyedArchiver.archivedData(withRootObject: ProbeItems(items: [cards[0], cards[1], cards[0]]))
        let byHand = try KeyedArchiver.archivedData(withRootObject: HandProbeCards(items: [cards[0], cards[1], cards[0]]))
        #expect(written == byHand)
        let nested = try KeyedArchiver.archivedData(withRootObject: ProbeItems(items: [[cards[0]], [cards[1], cards[0]]]))
        let nestedBack = try KeyedUnarchiver().decode(ProbeItems<[[ProbeCard]]>.self, from: nested).items
        #expect(nestedBack.map { $0.map(\.name) } == [["a"], ["b", "a"]])
        #expect(nestedBack[0][0] === nestedBack[1][1])
    }
}

/// The probe object with an array of cards, written by hand as `encode(to:)` writes an array of models.
struct HandProbeCards: KeyedArchivable {
    static var archivedClassName: String { probeClassName }
    var items: [ProbeCard]
    init(items: [ProbeCard]) { self.items = items }
    init(from decoder: any ArchiveDecoder) throws { items = try decoder.decode([ProbeCard].self, forKey: "items") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(items, forKey: "items") }
}

/// A card or a ticket, written as the model itself: an array of them is an NSArray of both classes.
enum CardOrTicket: Codable {
    case card(ProbeCard)
    case ticket(ProbeTicket)
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .card(let card): try container.encode(card)
        case .ticket(let ticket): try container.encode(ticket)
        }
    }
    init(from decoder: any Decoder) throws { throw ProbeReadError() }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
