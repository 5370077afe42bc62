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

/// The ``KeyedArchiveError`` an error carries: the error itself, or the one under a Codable `DecodingError`
/// or `EncodingError` (its context's `underlyingError`, at any depth). Nil for any other error.
func archiveError(_ error: any Error) -> KeyedArchiveError? {
    if let e = error as? KeyedArchiveError { return e }
    switch error as? DecodingError {
    case .typeMismatch(_, let c)?, .valueNotFound(_, let c)?, .keyNotFound(_, let c)?, .dataCorrupted(let c)?:
        return c.underlyingError.flatMap(archiveError)
    default: break
    }
    if case .invalidValue(_, let c)? = error as? EncodingError { return c.underlyingError.flatMap(archiveError) }
    return nil
}
