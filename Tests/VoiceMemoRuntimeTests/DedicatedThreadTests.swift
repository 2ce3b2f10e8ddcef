import Foundation
import IntegrationSupport
import Testing
import VoiceMemoCore
import VoiceMemoRuntime

@Suite("Dedicated thread")
struct DedicatedThreadTests {
    /// The names of this process's threads, as `top -H` shows them.
    private func threadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .newlines)
        }
    }

    @Test func theWorkRunsOnANamedThreadThatEndsWithIt() async throws {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        DedicatedThread.start(name: "vm-test-thread-long-name") {
            started.signal()
            release.wait()
        }
        started.wait()
        let names = try threadNames()
        #expect(names.contains("vm-test-thread-"), "named, cut to 15 bytes: \(names)")
        release.signal()
        // The thread is gone once its work returned (a failed wait records the issue).
        try waitUntil { (try? threadNames().contains("vm-test-thread-")) == false }
    }
}
