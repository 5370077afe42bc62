/// One step of the path from the root to the value being decoded.
enum ArchivePathComponent {
    case key(String)
    case index(Int)
    case dictionaryKey(Int)
    /// The value of entry `index` of a dictionary, whose key is the `$objects` reference `keyRef` (read only to
    /// name the entry in a Codable error's coding path).
    case dictionaryValue(Int, keyRef: Int)
}
