#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The package's errors describe themselves in one line (`description`: what was wrong and where). As
// `LocalizedError`s, `localizedDescription` gives that same line instead of Foundation's generic
// "The operation could not be completed", so code that logs `error.localizedDescription` shows the location.

extension KeyedArchiveError: LocalizedError {
    /// The error's one-line ``description``: what was wrong and where (key path, object UID, class name).
    public var errorDescription: String? { description }
}

extension PropertyListError: LocalizedError {
    /// The error's one-line ``description``: what was wrong and at which byte offset or object.
    public var errorDescription: String? { description }
}

extension FileIOError: LocalizedError {
    /// The error's one-line ``description``: the step that failed, the path and the reason.
    public var errorDescription: String? { description }
}
