extension UnarchivingSession {
    // MARK: Depth: the caller's stack first, a bigger one when it runs short

    /// The stack a nesting level may use beyond the floor before the check at the next level: 64 levels'
    /// worth (1 MiB by default, times ``stackFrameScale``), so that a model's `init(from:)` with large frames
    /// never meets the end.
    var stackReserve: Int {
        let (bytes, overflow) = scaledStackBytes(perLevel: stackBytesPerLevel).multipliedReportingOverflow(by: 64)
        return overflow ? Int.max : max(bytes, 256 << 10)
    }

    /// The floor for the calling thread (see ``State/stackFloor``): its stack's lowest address plus
    /// ``stackReserve``; nil when the system does not say where the stack ends, when the code is not
    /// running on that stack (a stack of its own making), or when too little of it is left.
    func callerStackFloor() -> UInt? {
        guard let (bottom, top) = currentThreadStack() else { return nil }
        let here = currentStackAddress()
        let (floor, overflow) = bottom.addingReportingOverflow(UInt(stackReserve))
        guard !overflow, here > floor, here < top else { return nil }
        return floor
    }

    /// Runs `body`, the decoding of one more nesting level: on this thread while its stack stays above
    /// ``State/stackFloor``, otherwise on a new thread whose stack holds every level that may remain (at most
    /// one per `$objects` entry not already on the path, capped by ``KeyedUnarchiver/Limits/maximumDepth``),
    /// waiting for it. Only one thread works on the session at a time.
    @inline(__always)
    func nested<R>(_ body: () throws -> R) throws -> R {
        if s.stackFloor == 0 || currentStackAddress() > s.stackFloor { return try body() }
        return try continueOnNewThread(body)
    }

    /// Runs `body`, code outside the session that recurses up to `levels` deep (Foundation's
    /// `PropertyListDecoder` and a `Decodable`'s `init(from:)` reading a property-list subtree of the
    /// archive, ``ArchiveDecoder/decodeDecodable(_:forKey:)``): on this thread while its stack holds
    /// `levels` more levels of ``stackBytesPerLevel`` above ``State/stackFloor``, otherwise on a new thread whose
    /// stack does, waiting for it. (The subtree's levels are objects of the archive not on the path, so a
    /// stack sized for every level that may remain holds them.)
    @inline(__always)
    func withStack<R>(forLevels levels: Int, _ body: () throws -> R) throws -> R {
        if holds(levels: levels) { return try body() }
        return try runOnThread(levels: levels + 4, bytesPerLevel: stackBytesPerLevel, body)
    }

    /// Whether this thread's stack holds `levels` more levels (see ``withStack(forLevels:_:)``).
    private func holds(levels: Int) -> Bool {
        if s.stackFloor == 0 { return true }
        let here = currentStackAddress()
        return here > s.stackFloor && levels <= Int((here - s.stackFloor) / UInt(scaledStackBytes(perLevel: stackBytesPerLevel)))
    }

    @inline(never)
    private func continueOnNewThread<R>(_ body: () throws -> R) throws -> R {
        let levels = max(min(objectCount, limits.maximumDepth) - depth, 0) + 4
        var outcome: Result<R, any Error>?
        let floor = s.stackFloor
        defer { s.stackFloor = floor }
        try withoutActuallyEscaping(body) { body in
            try runOnDecodingThread(levels: levels, bytesPerLevel: stackBytesPerLevel) {
                // This stack is sized for every level that may remain, at the estimated stack per level; its
                // own floor keeps that estimate from being trusted: levels that outgrow it continue on
                // another thread (no floor only where the system does not say where the stack ends).
                self.s.stackFloor = self.callerStackFloor() ?? 0
                outcome = Result { try body() }
            }
        }
        // Objects decoded on this stack may hold chains as deep: they are released on one as big.
        s.deepestThreadLevels = max(s.deepestThreadLevels, levels)
        return try decodingThreadOutcome(outcome)
    }
}
