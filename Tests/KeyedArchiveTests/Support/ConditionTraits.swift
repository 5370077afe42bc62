import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only when the shared corpus is present; otherwise the run reports it as skipped.
    static var requiresCorpus: Self { .enabled(if: Corpus.isAvailable, "needs the shared corpus (../shared/corpus)") }

    /// Runs the test only when python3 with plistlib runs; otherwise the run reports it as skipped.
    static var requiresPlistlib: Self { .enabled(if: PlistlibOracle.isAvailable, "needs python3 with plistlib") }
}
