import Foundation
import Testing

@testable import KeyedArchive

/// A keyed archive of a few hundred bytes whose object #1 holds, in field `v`, 40 levels of arrays each
/// referring to the next level twice (2^40 paths): reading the field shares the sub-tree, as the property
/// list does, instead of expanding it.
@Suite struct ArchivedObjectGraphSharedSubtreeTests {
    /// A binary property list with one-byte object references and 2-byte offsets. Objects are given as their
    /// encoded bytes; `refs` makes an array or dictionary marker and its references.
    static func bplist(_ objects: [[UInt8]]) -> Data {
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 1]                                   // trailer: offset size 2, ref size 1
        for n in [UInt64(objects.count), 0, UInt64(table)] { out += withUnsafeBytes(of: n.bigEndian, Array.init) }
        return Data(out)
    }

    static func ascii(_ s: String) -> [UInt8] {
        let n = s.utf8.count
        return (n < 15 ? [0x50 | UInt8(n)] : [0x5F, 0x10, UInt8(n)]) + Array(s.utf8)
    }
    static func array(_ refs: [Int]) -> [UInt8] { [0xA0 | UInt8(refs.count)] + refs.map(UInt8.init) }
    static func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        [0xD0 | UInt8(keys.count)] + (keys + values).map(UInt8.init)
    }

    /// The archive; the bottom of the bomb is `leaf` (a reference to object 1 itself, or an integer).
    static func archive(leafIsReference: Bool) -> Data {
        let head: [[UInt8]] = [
            dictionary([1, 2, 3, 4], [5, 6, 7, 8]),                       // 0: the envelope
            ascii("$archiver"), ascii("$version"), ascii("$top"), ascii("$objects"),  // 1-4
            ascii("NSKeyedArchiver"), [0x12, 0x00, 0x01, 0x86, 0xA0],      // 5, 6: 100000
            dictionary([9], [10]),                                         // 7: $top = {root: UID 1}
            array([11, 12, 13]),                                           // 8: $objects
            ascii("root"), [0x80, 1], ascii("$null"),                      // 9, 10, 11
            dictionary([14, 15], [16, 21]),                                // 12: {$class: UID 2, v: level 0}
            dictionary([17, 18], [19, 20]),                                // 13: the class Thing
            ascii("$class"), ascii("v"), [0x80, 2],                        // 14, 15, 16
            ascii("$classname"), ascii("$classes"), ascii("Thing"),       // 17, 18, 19
            array([19]),                                                   // 20: ["Thing"]
        ]
        // 21 ... 60: level k = [level k+1, level k+1]; 61 = [leaf]; 62 = the leaf.
        let levels = (21 ..< 61).map { array([$0 + 1, $0 + 1]) } + [array([62])]
        let leaf: [UInt8] = leafIsReference ? [0x80, 1] : [0x10, 7]
        return bplist(head + levels + [leaf])
    }

    @Test(arguments: [true, false]) func readingASharedFieldDoesNotExpandIt(leafIsReference: Bool) throws {
        let data = Self.archive(leafIsReference: leafIsReference)
        #expect(data.count < 500)
        let graph = try ArchivedObjectGraph(data: data)
        let instance = try #require(graph.object(UID(1))?.instance)
        #expect(instance.className == "Thing")
        var field = try #require(instance["v"])
        guard leafIsReference else {
            // No reference inside: the field is the stored value itself, shared sub-trees and all.
            guard case .value(let stored) = field, case .array(let top) = stored else {
                Issue.record("expected a plain value, got \(field)")
                return
            }
            #expect(top.count == 2)
            return
        }
        for level in 0 ..< 40 {
            guard case .array(let pair) = field, pair.count == 2 else {
                Issue.record("level \(level) is not a pair: \(field)")
                return
            }
            #expect(pair[0] == pair[1])  // the same storage: compared without a walk
            field = pair[0]
        }
        #expect(field == .array([.reference(UID(1))]))
    }

    @Test func interpretingAFieldKeepsReferencesInEveryKindOfContainer() {
        let stored: PropertyListValue = [
            .uid(UID(0)), .uid(UID(3)), .string("x"), .set([.uid(UID(4))]), ["k": .uid(UID(5)), "n": 1], [1, 2],
        ]
        #expect(ArchivedValue(stored) == .array([
            .null, .reference(UID(3)), .value("x"), .set([.reference(UID(4))]),
            .dictionary([ArchivedField("k", .reference(UID(5))), ArchivedField("n", .value(1))]), .value([1, 2]),
        ]))
        #expect(ArchivedValue(stored).storedValue == stored)
    }
}
