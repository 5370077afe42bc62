// libFuzzer target: the OpenStep (old-style ASCII) property-list and .strings reader.
//
// Property checked: the reader gives a value or throws a PropertyListError, nothing else; a value holds only
// strings, data, arrays and dictionaries (OpenStep has no other syntax); it survives the binary writer and
// reader unchanged; the format-detecting entry point reads the same value unless the bytes are binary or XML.
// Differential: on short inputs, Foundation's PropertyListSerialization (CoreFoundation's CFOldStylePList.c)
// must agree: when it reads the text as OpenStep, ours reads the same value; when ours reads a value,
// Foundation does too (except text starting with a zero byte, which ours refuses: see below).
//
// Build and run with Scripts/fuzz.sh openstep-reader SECONDS.

import Foundation
import KeyedArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOpenStepReader(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let options = FuzzLimits.readingOptions
    let ours: PropertyListValue?
    do {
        ours = try OpenStepPropertyListReader(options: options).read(data)
    } catch is PropertyListError {
        ours = nil
    } catch {
        fuzzViolation("OpenStep reader threw a non-PropertyListError: \(error)")
    }

    if let ours {
        guard onlyOpenStepKinds(ours) else { fuzzViolation("OpenStep value of a kind OpenStep cannot write: \(ours)") }
        do {
            let reread = try BinaryPropertyListReader(options: options).read(BinaryPropertyListWriter().write(ours))
            guard reread == ours else { fuzzViolation("OpenStep value changed through the binary writer and reader:\n  \(ours)\n  \(reread)") }
        } catch {
            fuzzViolation("binary reader rejects the binary writer's output of an OpenStep value: \(error)")
        }
        if PropertyListValue.detectFormat(of: data) != .binary, (try? XMLPropertyListReader(options: options).read(data)) == nil {
            do {
                guard try PropertyListValue(propertyListData: data, options: options) == ours else {
                    fuzzViolation("PropertyListValue(propertyListData:) disagrees with the OpenStep reader")
                }
            } catch {
                fuzzViolation("PropertyListValue(propertyListData:) rejects what the OpenStep reader accepts: \(error)")
            }
        }
    }

    // Foundation, on inputs short enough that its recursive parser cannot run out of stack. Not on text whose
    // first or second byte is zero: CoreFoundation reads it as UTF-16 without a byte-order mark from its third
    // byte (dropping the first character); ours refuses it, as OpenStepPropertyListReader documents.
    // Nor on bytes that are not UTF-8 (without a UTF-16 byte-order mark): ours refuses them; CoreFoundation's
    // converter reads some of them, as its decoder happens to take malformed sequences.
    guard count <= 2048, count <= 2 || (data[0] != 0 && data[1] != 0) else { return 0 }
    let hasUTF16Mark = data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE])
    guard hasUTF16Mark || String(validating: data, as: UTF8.self) != nil else { return 0 }
    var format = PropertyListSerialization.PropertyListFormat.binary
    let theirs = try? PropertyListSerialization.propertyList(from: data, options: [], format: &format)
    if let theirs, format == .openStep {
        guard let ours else { fuzzViolation("Foundation reads this OpenStep text; ours rejects it") }
        guard let converted = foundationValue(theirs), converted == ours else {
            fuzzViolation("Foundation reads another value:\n  ours:   \(ours)\n  theirs: \(theirs)")
        }
    } else if let ours, theirs == nil {
        fuzzViolation("ours reads \(ours); Foundation rejects the text")
    }
    return 0
}

/// Whether `value` holds only strings, data, arrays and dictionaries.
func onlyOpenStepKinds(_ value: PropertyListValue) -> Bool {
    var pending = [value]
    while let next = pending.popLast() {
        switch next {
        case .string, .data: continue
        case .array(let elements): pending.append(contentsOf: elements)
        case .dictionary(let dictionary): pending.append(contentsOf: dictionary.values)
        default: return false
        }
    }
    return true
}

/// Foundation's OpenStep value as a PropertyListValue (strings, data, arrays, dictionaries only).
func foundationValue(_ object: Any) -> PropertyListValue? {
    if let string = object as? String { return .string(string) }
    if let data = object as? Data { return .data(data) }
    if let array = object as? [Any] {
        var values: [PropertyListValue] = []
        for element in array {
            guard let value = foundationValue(element) else { return nil }
            values.append(value)
        }
        return .array(values)
    }
    if let dictionary = object as? [String: Any] {
        var pairs: [(String, PropertyListValue)] = []
        for (key, element) in dictionary {
            guard let value = foundationValue(element) else { return nil }
            pairs.append((key, value))
        }
        return .dictionary(PropertyListDictionary(pairs))
    }
    return nil
}
