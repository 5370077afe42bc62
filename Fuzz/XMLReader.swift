// libFuzzer target: the XML property-list reader.
//
// Property checked: whatever the reader accepts, the XML writer writes (when XML can express it; the
// writer's only accepted refusal is `unrepresentable`) and the reader reads back to an equal value.
// The value also survives the binary writer and reader unchanged, and the format-detecting entry point
// agrees with the XML reader. Anything but "a value" or "a thrown PropertyListError" is a finding.
//
// Build and run with Scripts/fuzz.sh xml-reader SECONDS.

import Foundation
import KeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMLReader(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let options = FuzzLimits.readingOptions
    let reader = XMLPropertyListReader(options: options)
    let value: PropertyListValue
    do {
        value = try reader.read(data)
    } catch is PropertyListError {
        return 0
    } catch {
        fuzzViolation("XML reader threw a non-PropertyListError: \(error)")
    }

    // XML -> XML.
    do {
        let written = try XMLPropertyListWriter().write(value)
        let reread: PropertyListValue
        do {
            reread = try reader.read(written)
        } catch {
            fuzzViolation("XML reader rejects the XML writer's output of an accepted value: \(error)\n\(String(decoding: written.prefix(2000), as: UTF8.self))")
        }
        guard reread == value else {
            fuzzViolation("XML read -> write -> read changed the value:\n  first:  \(value)\n  second: \(reread)")
        }
    } catch let error as PropertyListError where error.code == .unrepresentable {
        // A value the XML format has no text for (e.g. a date outside the years XML can write).
    } catch {
        fuzzViolation("XML writer failed with something other than `unrepresentable`: \(error)")
    }

    // XML -> binary.
    let binary = BinaryPropertyListWriter().write(value)
    do {
        let reread = try BinaryPropertyListReader(options: options).read(binary)
        guard reread == value else {
            fuzzViolation("XML value changed through the binary writer and reader:\n  first:  \(value)\n  second: \(reread)")
        }
    } catch {
        fuzzViolation("binary reader rejects the binary writer's output of an XML value: \(error)")
    }

    // The format-detecting entry point.
    if PropertyListValue.detectFormat(of: data) == .xml {
        do {
            let detected = try PropertyListValue(propertyListData: data, options: options)
            guard detected == value else { fuzzViolation("PropertyListValue(propertyListData:) disagrees with the XML reader") }
        } catch {
            fuzzViolation("PropertyListValue(propertyListData:) rejects what the XML reader accepts: \(error)")
        }
    }
    return 0
}
