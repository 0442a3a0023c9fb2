import Foundation
import Testing

/// The fast layer the README names (`swift test --skip '…'`) leaves out every test that starts the built binary,
/// tmux, a pty or the OpenSSH client, and those tests carry the `.endToEnd` tag: read from the test sources and the
/// README themselves, so a new slow test that is neither tagged nor skipped fails here.
@Suite struct TestLayerTests {
    static let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    static let root = tests.deletingLastPathComponent()

    /// What starts a process in a test (the launchers of the shared test support and the reliability suite's own).
    static let starts = [
        "Process()", "TmuxSession(", "BuiltProducts.executable(", "CardealerProcess(", "Launch(", "CardealerInTmux(",
    ]

    /// The `--skip` pattern of the README's fast layer.
    static func skipPattern() throws -> String {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("swift test --skip '") })
        return String(line.dropFirst("swift test --skip '".count).prefix { $0 != "'" })
    }

    /// Each test source under `Tests/` but the shared support: its target, its path and its text.
    static func sources() throws -> [(target: String, path: String, text: String)] {
        let paths = try #require(FileManager.default.subpathsOfDirectory(atPath: tests.path) as [String]?)
        // (and not this file, which names what it looks for)
        let this = URL(fileURLWithPath: #filePath).lastPathComponent
        return try paths.filter { $0.hasSuffix(".swift") && !$0.hasPrefix("TestSupport/") && !$0.hasSuffix("/" + this) }
            .sorted().map { path in
                let text = try String(contentsOf: tests.appendingPathComponent(path), encoding: .utf8)
                return (String(path.prefix { $0 != "/" }), path, text)
            }
    }

    /// The suites a file declares with `@Suite`: the names of the types that follow.
    static func suites(in text: String) -> [(name: String, tagged: Bool)] {
        let pattern =
            #/@Suite(\((?<traits>(?:[^()]|\([^()]*(?:\([^()]*\))?[^()]*\))*)\))?\s*(?:final\s+)?(?:struct|class|enum|actor)\s+(?<name>\w+)/#
        return text.matches(of: pattern).map { match in
            (String(match.output.name), match.output.traits.map { $0.contains(".tags(.endToEnd") } ?? false)
        }
    }

    @Test func every_test_that_starts_a_process_is_tagged_and_left_out_of_the_fast_layer() throws {
        let skip = try Regex(try Self.skipPattern())
        var checked = 0
        for source in try Self.sources() where Self.starts.contains(where: source.text.contains) {
            let suites = Self.suites(in: source.text)
            // (a file of helpers that starts processes for suites elsewhere declares none)
            if suites.isEmpty { continue }
            for suite in suites {
                checked += 1
                #expect(suite.tagged, "\(source.path): \(suite.name) starts a process but is not tagged .endToEnd")
                let identifier = "\(source.target).\(suite.name)"
                #expect(
                    identifier.contains(skip), "\(identifier) starts a process but the README's fast layer runs it")
            }
        }
        #expect(checked > 50, "only \(checked) suites found that start a process: the markers no longer match")
    }

    @Test func a_suite_tagged_end_to_end_is_left_out_of_the_fast_layer() throws {
        let skip = try Regex(try Self.skipPattern())
        for source in try Self.sources() {
            for suite in Self.suites(in: source.text) where suite.tagged {
                #expect("\(source.target).\(suite.name)".contains(skip), "\(source.path): \(suite.name)")
            }
        }
    }
}
