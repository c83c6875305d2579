import Foundation
import Glibc
import Synchronization

/// A program started by a test and kept running (a real lecternd), its output collected.
public final class RunningProcess {
    public let process = Process()
    /// What the process wrote, appended by the pipe's reader (a dispatch thread).
    private final class Collected: Sendable {
        let text = Mutex("")
        /// Broadcast after each chunk is appended (the waiters' event).
        let bell = NSCondition()
    }
    private let collected = Collected()
    private var lock: NSCondition { collected.bell }
    private var output: String { collected.text.withLock { $0 } }

    public init(_ path: String, _ args: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [collected] h in
            let d = h.availableData
            collected.text.withLock { $0 += String(decoding: d, as: UTF8.self) }
            collected.bell.lock()
            collected.bell.broadcast()
            collected.bell.unlock()
            if d.isEmpty { h.readabilityHandler = nil }
        }
        try process.run()
    }

    public var text: String { output }

    /// Waits until the output matches `predicate` (returns the output); throws at once if
    /// the process exits first, and after `timeout` seconds naming `what` and the output.
    public func waitForOutput(
        _ what: String = "output that matches", timeout: Double = 30,
        _ predicate: (String) -> Bool
    ) throws -> String {
        // On the event: the reader broadcasts `lock` with each chunk of output.
        try eventually("\(what); the output so far: \(output)", timeout: timeout, on: lock) {
            if predicate(output) { return true }
            if !process.isRunning && !predicate(output) {
                throw Fixtures.ToolError(description: "process exited (\(process.terminationStatus)): \(output)")
            }
            return false
        }
        return text
    }

    public func kill(_ signal: Int32 = SIGTERM) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    public func waitForExit() -> Int32 { process.waitUntilExit(); return process.terminationStatus }

    deinit { kill(SIGKILL); process.waitUntilExit() }
}
