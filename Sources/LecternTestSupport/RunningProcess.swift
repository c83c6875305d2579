import Foundation
import Glibc

/// A program started by a test and kept running (a real lecternd), its output collected.
public final class RunningProcess {
    public let process = Process()
    private let lock = NSCondition()
    private var output = ""

    public init(_ path: String, _ args: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = args
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] h in
            let d = h.availableData
            guard let self else { return }
            self.lock.lock()
            self.output += String(decoding: d, as: UTF8.self)
            self.lock.broadcast()
            self.lock.unlock()
            if d.isEmpty { h.readabilityHandler = nil }
        }
        try process.run()
    }

    public var text: String { lock.lock(); defer { lock.unlock() }; return output }

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
