import Foundation
import Testing
@testable import KeyedArchive
@testable import ArchiveDumpCore

/// archive-dump shows an NSValue of an Objective-C type (Apple's `$0`/`$1` layout) as its type and numbers.
@Suite struct ObjCValueRenderingTests {
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func applesConcreteValueFixtureIsShownAsItsTypeAndNumbers() throws {
        let data = try Corpus.data("corelibs-foundation/Resources/NSKeyedUnarchiver-ConcreteValueTest.plist")
        let graph = try ArchivedObjectGraph(data: data)
        #expect(rendered { TreeRenderer().render(graph: graph, to: $0) } == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 6 entries in $objects
            root: #1 NSValue [3i] {1, 2, 3}

            """)
        #expect(rendered { JSONRenderer().render(graph: graph, to: $0) }
                == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSValue","$value":"#
                + #"{"content":{"objCValue":{"value":{"elements":[{"integer":1},{"integer":2},{"integer":3}],"typeEncoding":"[3i]"}}}}}}}"#
                + "\n")
    }
}
