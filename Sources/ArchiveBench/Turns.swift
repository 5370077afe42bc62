import Foundation

/// A child's side of taking turns (`--turns`): the driver starts all processes of one workload and size
/// at once and lets one of them run at a time, a few runs per turn, round-robin, so that every process's
/// timed runs are spread over the same stretch of time.
///
/// Why: the same binary's per-process medians differed by 28-51% when the processes ran one after the
/// other, while the runs inside one process agreed within about 7%. Instruction counts and simulated
/// cache misses (callgrind) are the same in every process within 0.5%, with or without ASLR or Swift's
/// per-process hash seed; but timing one operation for 20 seconds in one process shows its median over
/// 20 runs moving by up to 50% within the process (a shared machine's load changes from one second to
/// the next), continuously across process boundaries. A process that runs in one 2-second window takes
/// that window's speed; taking turns gives every process a share of every window, so the spread over
/// processes shows what differs between processes, not when each one ran.
///
/// Every timed run still counts, and each turn after an operation's first starts with one untimed run, so
/// that a timed run always follows a run of the same operation in the same process (caches warm with its
/// data, as when the runs follow each other without turns).
final class Turns {
    /// How many turns an operation's timed runs are spread over (fewer when it has fewer runs).
    static let turnsPerOperation = 4

    /// Tells the driver this turn is over (`@turn`) and waits until it gives this process the next one
    /// (a line on standard input). Exits when the driver has gone (end of input).
    func next() {
        print("@turn")
        fflush(nil)
        guard readLine() != nil else { exit(0) }
    }

    /// Timed runs per turn, for an operation with about `runs` timed runs.
    func runsPerTurn(of runs: Int) -> Int {
        max(1, (runs + Self.turnsPerOperation - 1) / Self.turnsPerOperation)
    }
}

/// The driver's side of taking turns: runs `processes` copies of this executable with `arguments` and
/// `--turns` at once, and gives them turns round-robin (a line on a child's standard input starts its next
/// turn; its `@turn` line ends it) until every one has exited. Returns each child's standard output.
///
/// While one child runs, the others wait in a read, using no CPU. The first round starts the children one
/// by one, each making its inputs (untimed) alone.
func runInTurns(_ arguments: [String], processes: Int, firstExtra: [String], environment: [String: String], verbose: Bool) throws -> [String] {
    signal(SIGPIPE, SIG_IGN)  // a child that died shows as the end of its output, not as a signal to the driver
    var children: [(process: Process, input: FileHandle, output: FileHandle)] = []
    var outputs = Array(repeating: Data(), count: processes)
    var running = Set(0 ..< processes)
    let marker = Data("@turn\n".utf8)
    var firstRound = true
    while !running.isEmpty {
        for index in running.sorted() {
            if firstRound {
                // Started one at a time, each after the previous one's setup: the processes do not fault
                // in their memory at the same time (their pages would interleave in physical memory).
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
                process.arguments = arguments + ["--turns"] + (index == 0 ? firstExtra : [])
                process.environment = environment
                let input = Pipe(), output = Pipe()
                process.standardInput = input
                process.standardOutput = output
                try process.run()
                children.append((process, input.fileHandleForWriting, output.fileHandleForReading))
            } else {
                children[index].input.write(Data("go\n".utf8))
            }
            var turn = Data()
            while true {
                let chunk = children[index].output.availableData
                if chunk.isEmpty { running.remove(index); break }
                turn.append(chunk)
                if turn.count >= marker.count, turn.suffix(marker.count) == marker { turn.removeLast(marker.count); break }
            }
            outputs[index].append(turn)
            if verbose { FileHandle.standardOutput.write(turn) }
        }
        firstRound = false
    }
    for (index, child) in children.enumerated() {
        try? child.input.close()
        child.process.waitUntilExit()
        guard child.process.terminationStatus == 0 else {
            throw BenchError("process \(index + 1) of \(arguments.joined(separator: " ")) --turns exited with status \(child.process.terminationStatus)")
        }
    }
    return outputs.map { String(decoding: $0, as: UTF8.self) }
}
