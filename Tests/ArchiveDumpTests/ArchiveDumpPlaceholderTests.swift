import Testing

@Suite struct ArchiveDumpPlaceholderTests {
    @Test func placeholderUntilTheToolExists() {
        #expect(1 + 1 == 2)
    }
}
