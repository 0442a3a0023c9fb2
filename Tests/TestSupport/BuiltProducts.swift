import Foundation
import Synchronization

/// Finds executables this package builds, for tests that run them for real.
public enum BuiltProducts {
    /// The path of executable product `name` in the build folder the tests run from, if built.
    public static func executable(_ name: String, file: String = #filePath) -> String? {
        var candidates: [URL] = []
        if let main = Bundle.main.executableURL { candidates.append(main.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        let packageRoot = URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent(name).path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// A fresh private directory under the temporary directory.
    public static func temporaryDirectory(_ prefix: String) throws -> String {
        let path = NSTemporaryDirectory() + "\(prefix)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }
}

extension BuiltProducts {
    /// How a run of the built `cardealer` ended.
    public struct Ended: Sendable {
        public let status: Int32
        /// Standard output, with standard error in it unless it was kept apart.
        public let output: String
        /// Standard error when kept apart, else empty.
        public let errors: String
    }

    /// Runs the built `cardealer arguments…` to its end in `directory`, with `HOME` there, `PATH` the system's, and
    /// `environment` over them: how a test runs one command. Blocks the calling thread (from async code, through
    /// ``offThePool(_:)``). Both streams are read as they come, so neither can fill and stall the other.
    public static func runCardealer(
        _ arguments: [String], in directory: String, environment: [String: String] = [:], errorsApart: Bool = false
    ) throws -> Ended {
        guard let binary = executable("cardealer") else { throw NotBuilt() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["HOME": directory, "PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let output = Pipe()
        let errors = errorsApart ? Pipe() : output
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let errorData = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        if errorsApart {
            Thread {
                let data = errors.fileHandleForReading.readDataToEndOfFile()
                errorData.withLock { $0 = data }
                errorsRead.signal()
            }.start()
        } else {
            errorsRead.signal()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errorsRead.wait()
        return Ended(
            status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
            errors: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    /// `cardealer` is not built (`swift build` first).
    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String { "cardealer is not built (swift build first)" }
    }
}
