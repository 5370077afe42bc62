/// The version of the KeyedArchive package, as its release is tagged and listed in `CHANGELOG.md`
/// (semantic versioning: until 1.0.0 a minor version may change public API).
///
/// Foundation has no such API; `archive-dump --version` prints it.
public enum KeyedArchiveVersion {
    /// The package's version, `major.minor.patch`.
    public static let current = "0.1.0"
}
