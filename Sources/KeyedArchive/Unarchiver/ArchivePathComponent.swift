/// One step of the path from the root to the value being decoded.
enum ArchivePathComponent {
    case key(String)
    case index(Int)
    case dictionaryKey(Int)
}
