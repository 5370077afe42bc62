// libFuzzer target: the binary property-list reader.
//
// Property checked: whatever the reader accepts, the writer writes, and the reader reads back to an
// equal value (PropertyListValue's `==` is exact: reals and dates by bit pattern). The writer is also
// checked to be deterministic: writing the re-read value gives the same bytes.
// Lenient mode (PropertyListReadingOptions.isLenient) reads whatever the strict reader reads, to the
// same value; on other input it too returns a value or throws a PropertyListError.
// Any other outcome than "a value" or "a thrown PropertyListError" is a finding.
//
// Build and run with Scripts/fuzz.sh binary-reader SECONDS.

import Foundation
import KeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBinaryReader(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let options = FuzzLimits.readingOptions
    let reader = BinaryPropertyListReader(options: options)
    let value: PropertyListValue
    do {
        value = try reader.read(data)
    } catch is PropertyListError {
        // A lenient read of what the strict reader rejects must still end in a value or a PropertyListError.
        var lenientOptions = options
        lenientOptions.isLenient = true
        do {
            _ = try BinaryPropertyListReader(options: lenientOptions).read(data)
        } catch is PropertyListError {
        } catch {
            fuzzViolation("the lenient binary reader threw a non-PropertyListError: \(error)")
        }
        return 0
    } catch {
        fuzzViolation("binary reader threw a non-PropertyListError: \(error)")
    }

    // Lenient reading only relaxes rules: what the strict reader accepts, it reads to the same value.
    var lenientOptions = options
    lenientOptions.isLenient = true
    do {
        let lenient = try BinaryPropertyListReader(options: lenientOptions).read(data)
        guard lenient == value else {
            fuzzViolation("the lenient reader reads a different value:\n  strict:  \(value)\n  lenient: \(lenient)")
        }
    } catch {
        fuzzViolation("the lenient reader rejects what the strict reader accepts: \(error)")
    }

    let written = BinaryPropertyListWriter().write(value)
    let reread: PropertyListValue
    do {
        reread = try reader.read(written)
    } catch {
        fuzzViolation("binary reader rejects the writer's output of an accepted value: \(error)")
    }
    guard reread == value else {
        fuzzViolation("binary read -> write -> read changed the value:\n  first:  \(value)\n  second: \(reread)")
    }
    let rewritten = BinaryPropertyListWriter().write(reread)
    guard rewritten == written else {
        fuzzViolation("binary writer is not deterministic for equal values (\(written.count) vs \(rewritten.count) bytes)")
    }

    // The format-detecting entry point must agree with the binary reader.
    do {
        let detected = try PropertyListValue(propertyListData: data, options: options)
        guard detected == value else { fuzzViolation("PropertyListValue(propertyListData:) disagrees with the binary reader") }
    } catch {
        fuzzViolation("PropertyListValue(propertyListData:) rejects what the binary reader accepts: \(error)")
    }
    return 0
}
