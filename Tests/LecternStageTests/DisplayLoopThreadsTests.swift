import Foundation
import LecternModel
import LecternDisplay
import LecternPipeline
import LecternTestSupport
import XCTest

@testable import LecternStage

/// The display loop's threads carry names the kernel shows (/proc/<pid>/task/*/comm, `top
/// -H`, gdb), so a daemon's threads can be told apart when they are counted: Foundation's
/// name reaches the kernel only when a thread sets its own, and the kernel keeps 15 bytes.
final class DisplayLoopThreadsTests: XCTestCase {
    /// This process's threads by kernel thread id, with the name the kernel has for each.
    static func kernelNames() -> [String: String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var names: [String: String] = [:]
        for t in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(t)/comm", encoding: .utf8) else { continue }
            names[t] = comm.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return names
    }

    func testTheLoopAndItsPageThreadsAreNamedInTheKernel() throws {
        let before = Set(Self.kernelNames().keys)
        let mode = DisplayMode(width: 320, height: 180, refresh: 60)
        let loop = DisplayLoop(
            output: VirtualDisplay(mode: mode), core: StageCore(mode: mode), ink: InkOverlay(), hooks: DisplayHooks { _ in .failure(.superseded) })
        defer { loop.stop() }
        var new: [String] = []
        // On the event: each thread names itself first thing after it starts.
        try eventually("the loop's new threads named in /proc: \(new)") {
            new = Self.kernelNames().filter { !before.contains($0.key) }.map(\.value).sorted()
            return Set(["lectern.display"] + (0..<DisplayLoop.renderThreads).map { "lectern.pages.\($0)" }).isSubset(of: new)
        }
    }
}
