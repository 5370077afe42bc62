import Foundation
import Testing
@testable import KeyedArchive

/// Decoding a Codable value from a hostile archive nested thousands of levels deep, on a thread with an
/// 8 MiB stack (the main thread's size): each read either decodes or throws, it never overflows the stack.
@Suite struct DeepCodableDecodingTests {
    /// An object of class "Holder" whose field "v" is `levels` NSArrays, each holding the next, around
    /// the string "leaf": built by hand, as a hostile writer would.
    static func deepArchive(levels: Int) throws -> Data {
        var builder = ArchiveBuilder()
        var inner = builder.add("leaf")
        for _ in 0 ..< levels {
            inner = builder.object("NSArray", ["NSObject"], [("NS.objects", .array([inner]))])
        }
        let holder = builder.object("Holder", ["NSObject"], [("v", inner)])
        return try builder.archive(root: holder).propertyListData(format: .binary)
    }

    /// Reads field "v" with `decodeDecodable` as `[Int]` (a shallow type the deep value does not fit).
    struct DecodableHolder: KeyedArchivable {
        static var archivedClassName: String { "Holder" }
        let v: [Int]?
        init(from decoder: any ArchiveDecoder) throws { v = try decoder.decodeDecodable([Int].self, forKey: "v") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encodeEncodable(v, forKey: "v") }
    }

    /// Runs `body` on a thread with an 8 MiB stack and gives its result; nil if the thread could not start.
    static func onEightMiBStack<R>(_ body: @escaping () -> R) -> R? {
        var result: R?
        guard runOnThread(stackBytes: 8 << 20, { result = body() }) else { return nil }
        return result
    }

    /// A property list of nested arrays around a string, decoded level by level (recursively, as any
    /// `Decodable` of a recursive type is).
    enum Nest: Decodable, Equatable {
        case leaf(String)
        case list([Nest])

        init(from decoder: any Decoder) throws {
            // Only the leaf fails the first read (a failed read costs one error, whose coding path is as long
            // as the nesting is deep).
            if var c = try? decoder.unkeyedContainer() {
                var items: [Nest] = []
                while !c.isAtEnd { items.append(try c.decode(Nest.self)) }
                self = .list(items)
            } else {
                self = .leaf(try decoder.singleValueContainer().decode(String.self))
            }
        }

        /// How many single-element lists deep the leaf is, and the leaf (nil for another shape); no recursion.
        var depthAndLeaf: (Int, String)? {
            var current = self
            var depth = 0
            while case .list(let items) = current {
                guard items.count == 1 else { return nil }
                current = items[0]
                depth += 1
            }
            guard case .leaf(let s) = current else { return nil }
            return (depth, s)
        }
    }

    struct NestHolder: KeyedArchivable {
        static var archivedClassName: String { "Holder" }
        let v: Nest?
        init(from decoder: any ArchiveDecoder) throws { v = try decoder.decodeDecodable(Nest.self, forKey: "v") }
        func encode(to encoder: any ArchiveEncoder) throws {}
    }

    @Test func decodeDecodableOfADeepArrayThrowsTheDecodersErrorInsteadOfOverflowingTheStack() throws {
        let data = try Self.deepArchive(levels: 9_000)
        let outcome = Self.onEightMiBStack { Result { try KeyedUnarchiver().decode(DecodableHolder.self, from: data) } }
        let result = try #require(outcome)
        let error = try #require(throws: DecodingError.self) { try result.get() }
        guard case .typeMismatch(let type, let context) = error else {
            Issue.record("expected a type mismatch, got \(error)")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(context.codingPath.map(\.intValue) == [0, 0])  // the wrapping array's element, its first element
    }

    @Test func decodeDecodableReadsARecursiveTypeNineThousandLevelsDeep() throws {
        let levels = 9_000
        let data = try Self.deepArchive(levels: levels)
        let outcome = Self.onEightMiBStack { Result { try KeyedUnarchiver().decode(NestHolder.self, from: data).v?.depthAndLeaf } }
        let decoded = try #require(outcome).get()
        let found = try #require(decoded)
        #expect(found.0 == levels)
        #expect(found.1 == "leaf")
    }

    @Test func aClassOutsideThePropertyListClassesIsNamedWithItsPlaceInTheSubtree() throws {
        var builder = ArchiveBuilder()
        let null = builder.object("NSNull", ["NSObject"], [])
        let key = builder.add("name")
        let inner = builder.object("NSDictionary", ["NSObject"], [("NS.keys", .array([key])), ("NS.objects", .array([null]))])
        let list = builder.object("NSArray", ["NSObject"], [("NS.objects", .array([builder.add("a"), inner]))])
        let holder = builder.object("Holder", ["NSObject"], [("v", list)])
        let data = try builder.archive(root: holder).propertyListData(format: .binary)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(DecodableHolder.self, from: data) }
        #expect(error.code == .classNotAllowed)
        #expect(error.keyPath == "root.v[1].name")
    }

    /// The same nesting read through the Codable adapter (``ArchivableCodable``): nested unkeyed containers.
    struct CodableNestHolder: ArchivableCodable {
        static var archivedClassName: String { "Holder" }
        let v: CodableNest
    }

    /// ``Nest`` as a `Codable` value the adapter reads element by element.
    struct CodableNest: Codable {
        let nest: Nest
        init(from decoder: any Decoder) throws {
            if var c = try? decoder.unkeyedContainer() {
                var items: [Nest] = []
                while !c.isAtEnd { items.append(try c.decode(CodableNest.self).nest) }
                nest = .list(items)
            } else {
                nest = .leaf(try decoder.singleValueContainer().decode(String.self))
            }
        }
        func encode(to encoder: any Encoder) throws {}
    }

    @Test func theCodableAdapterReadsNestedUnkeyedContainersNineThousandLevelsDeep() throws {
        let levels = 9_000
        let data = try Self.deepArchive(levels: levels)
        let outcome = Self.onEightMiBStack { Result { try KeyedUnarchiver().decode(CodableNestHolder.self, from: data).v.nest.depthAndLeaf } }
        let decoded = try #require(outcome).get()
        let found = try #require(decoded)
        #expect(found.0 == levels)
        #expect(found.1 == "leaf")
    }
}
