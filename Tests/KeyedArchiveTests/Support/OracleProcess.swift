import Foundation

/// Runs an oracle program (python3, the GNUstep oracle) to completion and collects what it printed.
enum OracleProcess {
    /// What a finished run left.
    struct Output {
        var status: Int32
        /// Whether the program died of a signal rather than exiting.
        var crashed: Bool
        var stdout: Data
        var stderr: Data
    }

    /// Runs `executable` with `arguments` and no standard input, in `environment` (the test process's when nil).
    /// Standard error is read on another thread, so neither pipe can fill up and block the child.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errBox = DataBox()
        let errThread = Thread { errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile(); errBox.done.signal() }
        errThread.start()
        let out = outPipe.fileHandleForReading.readDataToEndOfFile()
        errBox.done.wait()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
                      stdout: out, stderr: errBox.data)
    }

    private final class DataBox: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }
}
