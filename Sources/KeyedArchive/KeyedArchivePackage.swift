/// Facts about the KeyedArchive package itself.
///
/// Foundation has no such API.
public enum KeyedArchivePackage {
    /// The package's version, `major.minor.patch`, as its release is tagged and listed in `CHANGELOG.md`
    /// (semantic versioning: until 1.0.0 a minor version may change public API). `archive-dump --version`
    /// prints it.
    public static let version = "0.1.0"
}
