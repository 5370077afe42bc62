import Dispatch

/// Work on numbered items spread over all processors, with results delivered in item order.
///
/// Items are computed a window at a time, at most `workers` at once on Dispatch's global queue, then the
/// window's results are delivered in order, so memory holds one window of results however many items
/// there are, and the output is the same whatever the number of workers.
enum OrderedWork {
    /// Computes `work(i)` for every `i` in `0..<count`, `window` items at a time and at most `workers` at
    /// once, and calls `deliver` with each result in order on the calling thread; stops once `deliver`
    /// returns false.
    static func run<Result: Sendable>(count: Int, workers: Int, window: Int, work: @escaping @Sendable (Int) -> Result,
                                      deliver: (Result) -> Bool) {
        let window = max(window, 1)
        let running = DispatchSemaphore(value: max(workers, 1))
        var start = 0
        while start < count {
            let size = min(window, count - start)
            let results = Slots<Result>(count: size)
            let first = start
            let group = DispatchGroup()
            for offset in 0..<size {
                running.wait()
                DispatchQueue.global().async(group: group) {
                    results.store(work(first + offset), at: offset)
                    running.signal()
                }
            }
            group.wait()
            for offset in 0..<size {
                guard let result = results.take(at: offset), deliver(result) else { return }
            }
            start += size
        }
    }

    /// A fixed number of result slots, each written by exactly one worker and read after all have finished.
    private final class Slots<Result>: @unchecked Sendable {
        private let buffer: UnsafeMutableBufferPointer<Result?>

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }

        deinit {
            buffer.deinitialize()
            buffer.deallocate()
        }

        /// Stores `result` in slot `index` (each slot by one worker only).
        func store(_ result: Result, at index: Int) { buffer[index] = result }

        /// The result in slot `index`, leaving it empty.
        func take(at index: Int) -> Result? {
            defer { buffer[index] = nil }
            return buffer[index]
        }
    }
}
