import CarDealerTestSupport
import Foundation
import Testing

/// Two `cardealer serve` processes started at once on the same, not yet generated, data file.
@Suite(.tags(.endToEnd)) struct ConcurrentFirstStartTests {
    @Test(.timeLimit(.minutes(3)))
    func two_first_starts_at_once_generate_the_demo_data_once_and_both_serve_it() async throws {
        // Given the built binary and a data file that does not exist yet
        let binary = try #require(BuiltProducts.executable("cardealer"), "build cardealer first")
        let directory = try BuiltProducts.temporaryDirectory("first-start")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = directory + "/demo.sqlite"
        // When two servers start together, each asked for 20,000 people in that file
        let servers = try (0..<2).map { _ in
            try ServerProcess(binary: binary, arguments: ["serve", "--port", "0", "--data", data, "--people", "20000"])
        }
        defer { servers.forEach { $0.stop() } }
        let lines = try await withThrowingTaskGroup(of: String.self) { group in
            for server in servers { group.addTask { try server.dataLine() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then one generated the data and the other waited and reused it; both serve 20,000 people
        #expect(lines.filter { $0.contains(" generated ") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains(" reused ") }.count == 1, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("Data: 20000 people") }, "\(lines)")
    }
}

/// A child process whose standard output is read line by line.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let output = Pipe()

    init(binary: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    /// The `Data: …` line the server prints once its data is ready (blocking; the process is killed on stop).
    func dataLine() throws -> String {
        var text = ""
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "exited early: \(text)"])
            }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Data:") }) { return String(line) }
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
