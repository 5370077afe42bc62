// Every file of this target sees the shared test support (Tests/TestSupport: the archive builder, the
// built-tool finder, the corpus locator, the models shared with the fuzz target) without importing it.
@_exported import KeyedArchiveTestSupport

/// The shared model `Tag`, not Swift Testing's `Tag` (both modules are imported in every test file).
typealias Tag = KeyedArchiveTestSupport.Tag
