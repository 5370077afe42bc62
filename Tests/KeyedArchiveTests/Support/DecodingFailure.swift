import Testing
@testable import KeyedArchive

/// The ``KeyedArchiveError`` that decoding `type` from `archive` throws, or `nil` when it decodes; an error
/// of any other type is recorded as an issue (and gives `nil`).
func keyedArchiveError<T: ArchiveValue>(decoding type: T.Type, from archive: PropertyListValue,
                                        with unarchiver: KeyedUnarchiver = KeyedUnarchiver()) -> KeyedArchiveError? {
    do {
        _ = try unarchiver.decode(type, from: archive)
        return nil
    } catch let error as KeyedArchiveError {
        return error
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}
