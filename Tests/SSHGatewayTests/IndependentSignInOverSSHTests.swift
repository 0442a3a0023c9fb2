import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// serve-ssh in front of services that need a sign-in (issue 35), when `.ci/checks/30-independent-writes.sh` started
/// them: the credentials are the gateway's (its options and environment, never the visitor's), and the device grant
/// works inside an SSH session, the code shown on the visitor's terminal (nothing opens a browser).
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil && sshClient != nil, "tmux or ssh is not installed; skipping")
)
struct IndependentSignInOverSSHTests {
    let environment = ProcessInfo.processInfo.environment

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CARDEALER_MOCKSAP_OAUTH_ROOT"] != nil))
    func a_session_signs_in_with_the_gateways_client_credentials() async throws {
        let root = try #require(environment["CARDEALER_MOCKSAP_OAUTH_ROOT"])
        let origin = root.components(separatedBy: "/sap/").first ?? root
        // Given a gateway configured with the client and its secret (the CI script's client for mock-sap)
        let gateway = try await ServedGateway.start(
            [
                "--service", root, "--client-id", "cardealer-ci", "--token-url", origin + "/sap/bc/sec/oauth2/token",
            ], environment: ["CARDEALER_CLIENT_SECRET": "ci-Secret-7f3a9"])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        // When a visitor connects (sending nothing but a terminal)
        let tmux = try ServeSSHTests().connect(gateway, columns: 110)
        defer { tmux.kill() }
        // Then the session browses the service signed in as the gateway's client
        let result = try await tmux.waitFor(timeout: .seconds(30)) {
            $0.contains("Business Partners") && $0.contains("● online")
        }
        #expect(result.matched, "\(result.screen)")
        // And the session's browser got the client from its command line, the secret on none (`ps` shows those)
        let sessions = Self.commandLines().filter { $0.contains("ssh-session") }
        #expect(!sessions.isEmpty)
        #expect(sessions.allSatisfy { $0.contains("--client-id cardealer-ci") }, "\(sessions)")
        // (cardealer's processes: the CI script gives mock-sap the client and secret on its own command line)
        let cardealer = Self.commandLines().filter {
            let program = $0.prefix { $0 != " " }
            return program == "cardealer" || program.hasSuffix("/cardealer")
        }
        #expect(cardealer.count >= 2, "the gateway and the session: \(cardealer)")
        #expect(!cardealer.contains { $0.contains("ci-Secret-7f3a9") })
        try tmux.sendKeys("q")
        _ = try await tmux.waitFor(timeout: .seconds(20)) { $0.contains("EXIT=0") }
    }

    /// Every process's command line, as `ps` would show it (arguments joined by spaces).
    static func commandLines() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
                return nil
            }
            return String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["CARDEALER_SIGNIN_ISSUER"] != nil))
    func the_device_grant_works_inside_an_ssh_session() async throws {
        let issuer = try #require(environment["CARDEALER_SIGNIN_ISSUER"])
        let gateway = try await ServedGateway.start([
            "--service", issuer + "/odata/", "--client-id", "cardealer-device", "--issuer", issuer, "--grant", "device",
            "--scope", "openid",
        ])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let tmux = try ServeSSHTests().connect(gateway, columns: 110)
        defer { tmux.kill() }
        // The visitor's terminal says where to go and which code to enter
        let prompt = try await tmux.waitFor(timeout: .seconds(30)) {
            $0.contains("To sign in, open \(issuer)/device")
                && $0.range(of: #"code [A-Z]{4}-[A-Z]{4}"#, options: .regularExpression) != nil
        }
        #expect(prompt.matched, "\(prompt.screen)")
        guard let range = prompt.screen.range(of: #"code [A-Z]{4}-[A-Z]{4}"#, options: .regularExpression) else {
            return
        }
        let code = String(prompt.screen[range].suffix(9))
        // When dora enters it on her phone
        let approve = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(
                method: .post, url: issuer + "/_test/device", headers: ["Content-Type": "application/json"],
                body: Array(#"{"user_code":"\#(code)","user":"dora","approve":true}"#.utf8)))
        #expect(approve.status == 200)
        // Then the session browses the service
        let browsing = try await tmux.waitFor(timeout: .seconds(30)) {
            $0.contains("Person") && $0.contains("● online")
        }
        #expect(browsing.matched, "\(browsing.screen)")
        try tmux.sendKeys("q")
        _ = try await tmux.waitFor(timeout: .seconds(20)) { $0.contains("EXIT=0") }
    }
}
