import CarDealerTestSupport
import Foundation
import Testing

/// Issue 11, item 9: the built `cardealer` keeps its files where the README says, keyed as it says.
@Suite(.tags(.endToEnd)) struct CommandLineTests {
    /// Runs `cardealer arguments…` in `directory` with `environment` (plus PATH and HOME) to its end; its output.
    static func run(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> String {
        try runWithStatus(arguments, in: directory, environment: environment).output
    }

    /// The same, with the exit status; blocks the calling thread (from async code, through ``offThePool(_:)``).
    static func runWithStatus(
        _ arguments: [String], in directory: String, environment: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let ended = try BuiltProducts.runCardealer(arguments, in: directory, environment: environment)
        return (ended.status, ended.output)
    }

    @Test func a_relative_cache_directory_is_taken_from_the_working_directory_by_every_command() throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try Self.run(
            ["cache", "path", "http://127.0.0.1:9/svc/", "--cache-directory", "mine"], in: directory)
        #expect(path.hasPrefix(directory + "/mine/cardealer/"), "\(path)")
    }

    @Test func two_bearer_tokens_without_a_user_name_get_two_caches_named_without_the_secret() throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let arguments = ["cache", "path", "http://127.0.0.1:9/svc/"]
        let first = try Self.run(arguments, in: directory, environment: ["CARDEALER_BEARER_TOKEN": "token-ALPHA-1234"])
        let second = try Self.run(arguments, in: directory, environment: ["CARDEALER_BEARER_TOKEN": "token-BRAVO-5678"])
        let anonymous = try Self.run(arguments, in: directory)
        #expect(first != second)
        #expect(first != anonymous && second != anonymous)
        #expect(first.contains("credential_"), "\(first)")
        #expect(!first.contains("ALPHA") && !second.contains("BRAVO"))
        // And the same token finds the same cache again
        #expect(
            try Self.run(arguments, in: directory, environment: ["CARDEALER_BEARER_TOKEN": "token-ALPHA-1234"]) == first
        )
    }

    @Test func serve_keeps_its_demo_data_under_XDG_DATA_HOME() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--people", "7"]
        process.environment = ["HOME": directory, "XDG_DATA_HOME": directory + "/data"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate() }
        // The second line says where the data is
        var text = ""
        let deadline = ContinuousClock.now + .seconds(60)
        while text.split(separator: "\n").count < 2, ContinuousClock.now < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        #expect(text.contains(directory + "/data/cardealer/demo-7.sqlite"), "\(text)")
        #expect(FileManager.default.fileExists(atPath: directory + "/data/cardealer/demo-7.sqlite"))
    }

    @Test func version_prints_the_version_and_nothing_else() throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let output = try Self.run(["--version"], in: directory)
        #expect(output.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+\n$"#, options: .regularExpression) != nil, "\(output)")
    }
}

extension CommandLineTests {
    @Test func credentials_go_over_plain_http_only_to_loopback_unless_asked() throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-cli")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // (192.0.2.1 is TEST-NET-1: nothing answers there, and nothing is sent)
        for (arguments, environment) in [
            (["export", "http://192.0.2.1/svc/", "Person"], ["CARDEALER_BEARER_TOKEN": "tok-Secret-1"]),
            (["export", "http://192.0.2.1/svc/", "Person", "--header", "APIKey=k"], [:]),
        ] {
            let (status, output) = try Self.runWithStatus(arguments, in: directory, environment: environment)
            #expect(status != 0 && output.contains("Cannot send credentials"), "\(output)")
            #expect(output.contains("plain http on another host") && !output.contains("tok-Secret-1"), "\(output)")
        }
    }
}
