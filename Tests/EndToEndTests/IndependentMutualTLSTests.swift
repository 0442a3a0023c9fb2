import CarDealerTestSupport
import Foundation
import Testing

/// The ownership service over TLS that requires a client certificate (CPython's ssl, `.ci/independent/tls_service.py`),
/// when `.ci/checks/30-independent-writes.sh` started it, with certificates made by openssl in `CARDEALER_TLS_CERTS`.
let tlsRoot = ProcessInfo.processInfo.environment["CARDEALER_TLS_ROOT"]
let tlsCertificates = ProcessInfo.processInfo.environment["CARDEALER_TLS_CERTS"]

/// Mutual TLS (issue 35) through the built binary: refused without a client certificate, without the private CA, or
/// with a wrong one, each in a sentence that says what to give; browsed with them; `--insecure` said all session.
@Suite(
    .tags(.endToEnd),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: tlsRoot != nil && tlsCertificates != nil, "CARDEALER_TLS_ROOT is not set (see .ci/checks)")
)
struct IndependentMutualTLSTests {
    /// `cardealer export ROOT Person ARGUMENTS` on a cache of its own: (status, output).
    static func export(_ arguments: [String], passphrase: Bool = true) async throws -> (status: Int32, output: String) {
        let root = try #require(tlsRoot)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-tls")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var environment = ["XDG_CACHE_HOME": directory + "/cache"]
        if passphrase { environment["CARDEALER_CLIENT_KEY_PASSPHRASE"] = "kiwi-passphrase" }
        let fixed = environment
        return try await offThePool {
            try CommandLineTests.runWithStatus(
                ["export", root, "Person"] + arguments, in: directory, environment: fixed)
        }
    }

    static func file(_ name: String) -> String { (tlsCertificates ?? "") + "/" + name }
    static var client: [String] { ["--client-cert", file("client.pem"), "--client-key", file("client.key")] }

    @Test func each_missing_or_wrong_part_is_a_sentence_and_with_all_of_them_the_people_come() async throws {
        let untrusted = try await Self.export(Self.client)
        #expect(
            untrusted.status != 0 && untrusted.output.contains("not signed by a CA this client trusts"),
            "\(untrusted.output)")
        let noCertificate = try await Self.export(["--ca-file", Self.file("ca.pem")])
        #expect(
            noCertificate.status != 0 && noCertificate.output.contains("wants a client certificate"),
            "\(noCertificate.output)")
        let wrongCA = try await Self.export(["--ca-file", Self.file("other-ca.pem")] + Self.client)
        #expect(
            wrongCA.status != 0 && wrongCA.output.contains("not signed by a CA this client trusts"), "\(wrongCA.output)"
        )
        let noPassphrase = try await Self.export(["--ca-file", Self.file("ca.pem")] + Self.client, passphrase: false)
        #expect(
            noPassphrase.status != 0 && noPassphrase.output.contains("set CARDEALER_CLIENT_KEY_PASSPHRASE"),
            "\(noPassphrase.output)")
        #expect(!noPassphrase.output.contains("BEGIN"), "no key material in a sentence")
        let signedIn = try await Self.export(["--ca-file", Self.file("ca.pem")] + Self.client)
        #expect(signedIn.status == 0 && signedIn.output.contains("1,Alice,Smith"), "\(signedIn.output)")
    }

    @Test func insecure_browses_and_says_so_on_the_status_line_all_session() async throws {
        let root = try #require(tlsRoot)
        let app = try BrowserInTmuxTests.Launch(
            "browse \(root)Person --insecure " + Self.client.joined(separator: " "), columns: 110, rows: 20,
            environment: "CARDEALER_CLIENT_KEY_PASSPHRASE=kiwi-passphrase ")
        defer { app.close() }
        try await app.expect("the people, the warning on the status line") {
            $0.contains("Alice Smith") && $0.contains("● online") && $0.contains("TLS not verified (--insecure)")
        }
        try app.tmux.sendKeys("Enter")
        try await app.expect("still said on the next screen") {
            $0.contains("Person detail") && $0.contains("TLS not verified (--insecure)")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}

extension IndependentMutualTLSTests {
    /// RFC 8705: client credentials with no secret, the client authenticated by its certificate at a token endpoint
    /// on another origin (the fixture's second instance), whose CA is trusted besides the system's.
    @Test func client_credentials_by_certificate_at_a_token_endpoint_elsewhere() async throws {
        let tokenURL = try #require(ProcessInfo.processInfo.environment["CARDEALER_TLS_TOKEN_URL"])
        let issuedURL = tokenURL.replacingOccurrences(of: "/token", with: "/_test/issued")
        let before = try await Self.issued(issuedURL)
        let signedIn = try await Self.export(
            ["--ca-file", Self.file("ca.pem"), "--client-id", "cardealer-mtls", "--token-url", tokenURL] + Self.client)
        #expect(signedIn.status == 0 && signedIn.output.contains("1,Alice,Smith"), "\(signedIn.output)")
        #expect(try await Self.issued(issuedURL) == before + 1, "the token endpoint elsewhere issued the token")
        // Without the certificate, no secret either: a sentence before any request
        let none = try await Self.export([
            "--ca-file", Self.file("ca.pem"), "--client-id", "cardealer-mtls", "--token-url", tokenURL,
        ])
        #expect(
            none.status != 0 && none.output.contains("or its certificate (--client-cert and --client-key)"),
            "\(none.output)")
    }

    /// How many tokens the fixture at `url` issued, read with curl (another TLS client than ours).
    static func issued(_ url: String) async throws -> Int {
        let output = try await offThePool { () throws -> String in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "-s", "--cacert", file("ca.pem"), "--cert", file("client.pem"), "--key", file("client.key"), "--pass",
                "kiwi-passphrase", url,
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
        guard let range = output.range(of: #"\d+"#, options: .regularExpression) else {
            Issue.record("curl: \(output)")
            return -1
        }
        return Int(output[range]) ?? -1
    }
}
