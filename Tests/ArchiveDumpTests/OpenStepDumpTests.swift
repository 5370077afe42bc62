import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// archive-dump reads OpenStep (old ASCII) property lists and `.strings` files through the library's
/// format detection: no option, the same modes as for binary and XML input.
@Suite struct OpenStepDumpTests {
    func dump(_ arguments: [String], _ text: String) -> (status: Int32, output: String, errors: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments + ["-"], input: { Data(text.utf8) }, output: out.output,
                                            errors: err.output, outputIsTerminal: false)
        return (status, out.text, err.text)
    }

    @Test func openStepPropertyListIsShownAsATree() {
        let result = dump([], "// settings\n{ name = \"Caf\\U00e9\"; sizes = (1, 2); icon = <0fbd>; }\n")
        #expect(result.status == 0)
        #expect(result.errors.isEmpty)
        #expect(result.output == """
            dictionary (3 entries)
              name: "Café"
              sizes: array (2 items)
                [0]: "1"
                [1]: "2"
              icon: {length = 2, bytes = 0x0fbd}

            """)
    }

    @Test func stringsFileConvertsToJSONAndXML() throws {
        let text = "/* Greeting */\n\"greeting\" = \"Hello\";\nfarewell = 'Bye';\n"
        let json = dump(["--json"], text)
        #expect(json.status == 0)
        #expect(json.output == "{\"greeting\":\"Hello\",\"farewell\":\"Bye\"}\n")
        let xml = dump(["--xml"], text)
        #expect(xml.status == 0)
        #expect(try XMLPropertyListReader().read(Data(xml.output.utf8)) == ["greeting": "Hello", "farewell": "Bye"])
    }

    @Test func malformedOpenStepNamesLineAndColumn() {
        let result = dump([], "{\n  a = (1, 2\n}\n")
        #expect(result.status == 1)
        #expect(result.errors == "Error: <stdin>: property list: at byte 14 line 3, column 1 at a[2]: expected ',' or ')' after an array element, found '}'\n")
    }
}
