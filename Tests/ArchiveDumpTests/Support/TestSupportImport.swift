// Every file of this target sees the shared test support (Tests/TestSupport: the archive builder, the
// built-tool finder, the corpus locator, the models shared with the fuzz target) without importing it.
@_exported import KeyedArchiveTestSupport
