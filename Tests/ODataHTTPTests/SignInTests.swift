import CarDealerTestSupport
import Foundation
import ODataCore
import Synchronization
import Testing

@testable import ODataHTTP

/// What a token endpoint's answer means (RFC 6749 §5), read as a value.
@Suite struct TokenAnswerTests {
    static func read(
        _ status: Int, _ body: String, type: String = "application/json"
    ) -> Result<IssuedToken, SignInError> {
        TokenAnswer.read(
            status: status, contentType: type, body: Array(body.utf8), now: Date(timeIntervalSince1970: 1000))
    }

    /// A JWT whose payload is `claims` (unsigned: only the name is read from it).
    static func jwt(_ claims: String) -> String {
        let payload = Data(claims.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return "eyJhbGciOiJub25lIn0.\(payload).sig"
    }

    @Test func a_token_with_its_lifetime_refresh_token_and_user() throws {
        let body =
            #"{"access_token":"abc","token_type":"Bearer","expires_in":3600,"refresh_token":"r1","#
            + #""scope":"read","id_token":"\#(Self.jwt(#"{"sub":"42","preferred_username":"ann@example.com"}"#))"}"#
        let token = try Self.read(200, body).get()
        #expect(token.accessToken == "abc")
        #expect(token.refreshToken == "r1")
        #expect(token.expiresAt == Date(timeIntervalSince1970: 4600))
        #expect(token.user == "ann@example.com")
        #expect(!token.description.contains("abc") && !token.description.contains("r1"))
    }

    @Test(arguments: [
        (#""expires_in":"120""#, Date(timeIntervalSince1970: 1120) as Date?),
        ("", nil), (#""expires_in":-5"#, nil), (#""expires_in":0"#, nil), (#""expires_in":"soon""#, nil),
    ])
    func a_lifetime_in_a_string_is_read_and_none_or_a_negative_one_is_unknown(field: String, ends: Date?) throws {
        let token = try Self.read(
            200, #"{"access_token":"abc","token_type":"bearer""# + (field.isEmpty ? "" : ",") + field + "}"
        ).get()
        #expect(token.expiresAt == ends)
    }

    @Test func an_id_token_that_is_not_a_jwt_leaves_the_user_unknown() throws {
        let token = try Self.read(200, #"{"access_token":"opaque","id_token":"not.a-jwt"}"#).get()
        #expect(token.user == nil)
    }

    @Test func a_server_error_is_a_sentence_and_final_when_asking_again_gets_the_same() {
        guard case .failure(let refused) = Self.read(401, #"{"error":"invalid_client","error_description":"bad"}"#)
        else {
            Issue.record("a token from a 401")
            return
        }
        #expect(refused.description == "the token endpoint refused: invalid_client (bad)")
        #expect(refused.isFinal)
        guard case .failure(let busy) = Self.read(503, "<html>busy</html>", type: "text/html") else {
            Issue.record("a token from a 503")
            return
        }
        #expect(busy.description == "the token endpoint answered 503 (an HTML page, not a token)")
        #expect(!busy.isFinal)
    }

    @Test func answers_that_hold_no_bearer_token_are_sentences() {
        let cases: [(Int, String, String)] = [
            (200, "<html>sign in</html>", "the token endpoint answered 200 with no token (an HTML page, not a token)"),
            (200, #"{"token_type":"bearer"}"#, "the token endpoint's answer holds no access_token"),
            (200, #"{"access_token":""}"#, "the token endpoint's answer holds no access_token"),
            (
                200, #"{"access_token":"x","token_type":"mac"}"#,
                "the token endpoint issued a mac token; only bearer tokens can be sent"
            ),
            (200, "[1,2]", "the token endpoint answered 200 with no token"),
        ]
        for (status, body, sentence) in cases {
            let type = body.hasPrefix("<") ? "text/html" : "application/json"
            guard case .failure(let error) = Self.read(status, body, type: type) else {
                Issue.record("a token from \(body)")
                continue
            }
            #expect(error.description == sentence)
        }
    }

    @Test func a_hostile_description_reaches_no_terminal_unsanitised() {
        let hostile = "bad\u{1B}[2J\u{1B}]0;pwned\u{07}\r\n\u{202E}reversed" + String(repeating: "x", count: 500)
        let body =
            #"{"error":"invalid_grant","error_description":"\#(hostile.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x202E ? String(format: "\\u%04x", $0.value) : String($0) }.joined())"}"#
        guard case .failure(let error) = Self.read(400, body) else {
            Issue.record("a token")
            return
        }
        #expect(
            !error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || $0.value == 0x202E })
        #expect(error.description.count < 260)
    }
}

/// The token file: the owner's alone, whole or not at all.
@Suite struct TokenStoreTests {
    @Test func tokens_are_kept_in_a_file_only_its_owner_reads_and_forgotten_per_service() throws {
        let directory = try BuiltProducts.temporaryDirectory("tokens")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = TokenStore(path: directory + "/state/cardealer/tokens.json")
        #expect(try store.entries().isEmpty)
        let token = IssuedToken(accessToken: "a1", refreshToken: "r1", expiresAt: Date(timeIntervalSince1970: 2000))
        try store.save(
            .init(serviceRoot: "https://a/", clientID: "c", tokenURL: "https://a/t", grant: "x", token: token))
        try store.save(
            .init(serviceRoot: "https://b/", clientID: "c", tokenURL: "https://b/t", grant: "x", token: token))
        var info = stat()
        #expect(stat(store.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(directory + "/state/cardealer", &info) == 0 && info.st_mode & 0o077 == 0)
        #expect(try store.entry(serviceRoot: "https://a/", clientID: "c")?.token == token)
        #expect(try store.remove(serviceRoot: "https://a/") == 1)
        #expect(try store.entries().map(\.serviceRoot) == ["https://b/"])
        // A file others can read is refused with the command that mends it
        chmod(store.path, 0o644)
        #expect(throws: SignInError.self) { try store.entries() }
        do { _ = try store.entries() } catch { #expect(error.description.contains("chmod 600")) }
    }
}

/// How many tokens a scripted authorization server issued.
final class Issued: Sendable {
    let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }
}

/// A token source against a scripted authorization server and service on 127.0.0.1.
@Suite struct TokenSourceTests {
    static func settings(_ server: ScriptedHTTPServer, secret: String = "s3cret") -> SignInSettings {
        SignInSettings(
            serviceRoot: server.url("/svc/"), tokenURL: server.url("/token"), clientID: "client", clientSecret: secret)
    }

    static func store() throws -> (TokenStore, String) {
        let directory = try BuiltProducts.temporaryDirectory("tokens")
        return (TokenStore(path: directory + "/tokens.json"), directory)
    }

    static func json(_ status: String, _ body: String) -> ScriptedHTTPServer.Reply {
        // (the scripted server reads no body: a POST's connection ends with its answer)
        .bytes(ScriptedHTTPServer.response(status: status, body: Array(body.utf8), close: true), close: true)
    }

    /// A server issuing t1, t2, … (`lifetime` seconds each) whose service takes only `accepted` tokens.
    static func server(
        issued: Issued, lifetime: Int = 3600, tokenStatus: String = "200 OK",
        accepted: @escaping @Sendable (String?) -> Bool
    ) throws -> ScriptedHTTPServer {
        try ScriptedHTTPServer { exchange in
            if exchange.target == "/token" {
                guard tokenStatus == "200 OK" else {
                    return json(
                        tokenStatus, #"{"error":"invalid_client","error_description":"Client authentication failed"}"#)
                }
                let number = issued.next()
                return json(
                    "200 OK", #"{"access_token":"t\#(number)","token_type":"Bearer","expires_in":\#(lifetime)}"#)
            }
            if accepted(exchange.header("Authorization")) { return json("200 OK", "{}") }
            return json("401 Unauthorized", #"{"error":{"code":"401","message":"expired"}}"#)
        }
    }

    @Test func requests_refused_together_share_one_renewal_and_each_is_sent_again_once() async throws {
        // Given a service that takes only the second token issued
        let issued = Issued()
        let server = try Self.server(issued: issued) { $0 == "Bearer t2" }
        let (store, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tokens = TokenSource(settings: Self.settings(server), store: store)
        let transport = HTTPClientTransport(serviceOrigin: server.url("/svc/"), timeout: 20, tokens: tokens)
        // When five requests go at once
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 {
                group.addTask { try await transport.send(TransportRequest(url: server.url("/svc/P"))).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then each is answered, after one sign-in and one renewal in all
        #expect(statuses == [200, 200, 200, 200, 200])
        #expect(issued.count == 2)
        let serviceRequests = server.exchanges.filter { $0.target == "/svc/P" }
        // (each sent with t1 and again with t2; one that starts after t2 came goes once)
        #expect((5...10).contains(serviceRequests.count), "\(serviceRequests.count)")
        #expect(try store.entry(serviceRoot: server.url("/svc/"), clientID: "client")?.token.accessToken == "t2")
    }

    @Test func a_second_401_comes_back_as_it_is_without_another_renewal() async throws {
        let issued = Issued()
        let server = try Self.server(issued: issued) { _ in false }
        let (store, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let transport = HTTPClientTransport(
            serviceOrigin: server.url("/svc/"), timeout: 20,
            tokens: TokenSource(settings: Self.settings(server), store: store))
        let response = try await transport.send(TransportRequest(url: server.url("/svc/P")))
        #expect(response.status == 401)
        #expect(issued.count == 2, "one sign-in, one renewal, no loop")
        #expect(server.exchanges.filter { $0.target == "/svc/P" }.count == 2)
    }

    @Test func a_token_about_to_end_is_renewed_before_it_is_sent() async throws {
        // Given 5-second tokens and a clock the test moves
        let issued = Issued()
        let server = try Self.server(issued: issued, lifetime: 5) { $0 != nil }
        let (store, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let tokens = TokenSource(settings: Self.settings(server), store: store, now: { clock.withLock { $0 } })
        #expect(try await tokens.authorization() == "Bearer t1")
        clock.withLock { $0 += 3 }
        #expect(try await tokens.authorization() == "Bearer t1", "2 s left of 5: kept")
        clock.withLock { $0 += 1.5 }
        #expect(try await tokens.authorization() == "Bearer t2", "0.5 s left: renewed before it is sent")
        #expect(server.exchanges.allSatisfy { $0.target == "/token" })
    }

    @Test func a_refused_sign_in_asks_nothing_more_until_the_store_holds_a_new_token() async throws {
        // Given an authorization server that refuses the client
        let issued = Issued()
        let server = try Self.server(issued: issued, tokenStatus: "401 Unauthorized") { $0 == "Bearer fresh" }
        let (store, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = Self.settings(server, secret: "wrong")
        let transport = HTTPClientTransport(
            serviceOrigin: server.url("/svc/"), timeout: 20, tokens: TokenSource(settings: settings, store: store))
        // When two requests are sent
        for _ in 0..<2 {
            do {
                _ = try await transport.send(TransportRequest(url: server.url("/svc/P")))
                Issue.record("a request went out without a token")
            } catch let error as ODataError {
                // Then each fails before it is sent, saying what was refused and how to mend it
                #expect(error.neverSent)
                #expect(
                    error.message.contains("invalid_client") && error.message.contains("cardealer login"), "\(error)")
            }
        }
        #expect(server.exchanges.filter { $0.target == "/token" }.count == 1, "the refusal is final")
        #expect(!server.exchanges.contains { $0.target == "/svc/P" })
        // When another process signs in (as `cardealer login` does), the next request uses its token
        try store.save(
            .init(
                serviceRoot: settings.serviceRoot, clientID: "client", tokenURL: settings.tokenURL,
                grant: "client-credentials",
                token: IssuedToken(accessToken: "fresh")))
        #expect(try await transport.send(TransportRequest(url: server.url("/svc/P"))).status == 200)
    }

    @Test func an_authorization_server_that_hangs_or_floods_is_a_sentence() async throws {
        let server = try ScriptedHTTPServer { exchange in
            if exchange.target == "/token" { return .stall }
            return .stream { send in
                _ = send(Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8))
                let chunk = [UInt8](repeating: 0x20, count: 65_536)
                for _ in 0..<160 where send(chunk) {}  // 10 MB
            }
        }
        let hanging = SignInSettings(
            serviceRoot: server.url("/svc/"), tokenURL: server.url("/token"), clientID: "c", clientSecret: "s")
        await #expect {
            _ = try await TokenEndpoint(timeout: 0.5).token(hanging, form: [("grant_type", "client_credentials")])
        } throws: { ($0 as? SignInError)?.description.contains("no answer within") == true }
        var flooding = hanging
        flooding.tokenURL = server.url("/flood")
        await #expect {
            _ = try await TokenEndpoint(timeout: 20).token(flooding, form: [("grant_type", "client_credentials")])
        } throws: { ($0 as? SignInError)?.description.contains("larger than 64 KiB") == true }
    }

    @Test func a_discovery_document_that_sends_tokens_to_another_origin_is_refused() async throws {
        let port = Mutex(0)
        let server = try ScriptedHTTPServer { exchange in
            let elsewhere = exchange.target.hasPrefix("/evil")
            let endpoint =
                elsewhere ? "https://attacker.example/token" : "http://127.0.0.1:\(port.withLock { $0 })/token"
            return .bytes(ScriptedHTTPServer.response(body: Array(#"{"token_endpoint":"\#(endpoint)"}"#.utf8)))
        }
        port.withLock { $0 = server.port }
        #expect(
            try await TokenEndpoint(timeout: 20).discover(issuer: server.url("/good")).tokenURL == server.url("/token"))
        await #expect {
            _ = try await TokenEndpoint(timeout: 20).discover(issuer: server.url("/evil"))
        } throws: { ($0 as? SignInError)?.description.contains("not to the issuer's own origin") == true }
        #expect(
            server.exchanges.map(\.target) == [
                "/good/.well-known/openid-configuration", "/evil/.well-known/openid-configuration",
            ])
    }

    @Test func credentials_never_go_over_plain_http_to_another_host_unless_asked() {
        var settings = SignInSettings(
            serviceRoot: "https://erp.example/sap/opu/odata/X/", tokenURL: "http://auth.example/token", clientID: "c",
            clientSecret: "s")
        #expect(settings.problem()?.contains("plain http on another host") == true)
        settings.allowsPlainHTTP = true
        #expect(settings.problem() == nil)
        settings.tokenURL = "https://auth.example/token"
        settings.clientSecret = nil
        #expect(settings.problem()?.contains("CARDEALER_CLIENT_SECRET") == true)
        #expect(
            !SignInSettings(
                serviceRoot: "http://127.0.0.1:1/", tokenURL: "http://[::1]:2/t", clientID: "c",
                clientSecret: "Sekrit-Wombat-91"
            ).description.contains("Sekrit-Wombat-91"))
        // A host name that starts like a loopback address is not one
        #expect(
            SignInSettings(
                serviceRoot: "http://127.evil.example/svc/", tokenURL: "https://a/t", clientID: "c", clientSecret: "s"
            ).problem()?.contains("plain http on another host") == true)
        #expect(
            SignInSettings(
                serviceRoot: "http://127.0.0.1:1/", tokenURL: "http://[::1]:2/t", clientID: "c", clientSecret: "s"
            ).problem() == nil)
    }
}

/// The device authorization grant (RFC 8628) against a scripted server: the prompt read, polls paced.
@Suite struct DeviceGrantTests {
    @Test func a_prompt_is_read_with_its_defaults_and_a_bad_one_is_a_sentence() throws {
        let now = Date(timeIntervalSince1970: 1000)
        let body =
            #"{"device_code":"d1","user_code":"AB\u001b[2J-CD","verification_uri":"https://login.example/device"}"#
        let prompt = try DevicePrompt.read(
            status: 200, contentType: "application/json", body: Array(body.utf8), now: now
        )
        .get()
        #expect(prompt.userCode == "AB[2J-CD", "the escape is gone")
        #expect(prompt.interval == 5 && prompt.expiresAt == now.addingTimeInterval(600))
        #expect(prompt.sentence == "open https://login.example/device and enter the code AB[2J-CD")
        let bad: [(String, String)] = [
            (
                #"{"device_code":"d1","user_code":"U","verification_uri":"javascript:alert(1)"}"#,
                "no http(s) verification_uri"
            ),
            (#"{"user_code":"U","verification_uri":"https://x/"}"#, "holds no device_code and user_code"),
        ]
        for (text, sentence) in bad {
            guard case .failure(let error) = DevicePrompt.read(status: 200, contentType: nil, body: Array(text.utf8))
            else {
                Issue.record("a prompt from \(text)")
                continue
            }
            #expect(error.description.contains(sentence), "\(error)")
        }
    }

    /// The device grant at `server`'s `/device` and `/token`.
    static func settings(_ server: ScriptedHTTPServer) -> SignInSettings {
        SignInSettings(
            serviceRoot: server.url("/svc/"), tokenURL: server.url("/token"), deviceURL: server.url("/device"),
            clientID: "c", grant: .device)
    }

    /// A prompt for code `U`, polled every `interval` seconds until `expiresAt` (ten minutes from now).
    static func prompt(expiresAt: Date = Date().addingTimeInterval(600), interval: Double = 1) -> DevicePrompt {
        DevicePrompt(
            deviceCode: "d", userCode: "U", verificationURI: "https://x/", expiresAt: expiresAt, interval: interval)
    }

    /// A token endpoint answering `answers` in turn (then the token).
    static func server(_ answers: [String]) throws -> ScriptedHTTPServer {
        let next = Issued()
        return try ScriptedHTTPServer { _ in
            let index = next.next() - 1
            guard index < answers.count else {
                return TokenSourceTests.json("200 OK", #"{"access_token":"dev","token_type":"Bearer"}"#)
            }
            return TokenSourceTests.json("400 Bad Request", #"{"error":"\#(answers[index])"}"#)
        }
    }

    @Test func polls_wait_the_interval_five_seconds_longer_after_slow_down_until_the_token() async throws {
        let server = try Self.server(["authorization_pending", "slow_down", "authorization_pending"])
        let settings = Self.settings(server)
        let prompt = Self.prompt()
        let slept = Mutex<[Double]>([])
        let token = try await TokenEndpoint(timeout: 20).pollDevice(
            settings, prompt, sleep: { seconds in slept.withLock { $0.append(seconds) } })
        #expect(token.accessToken == "dev")
        #expect(slept.withLock { $0 } == [1, 1, 6, 6])
        #expect(server.exchanges.allSatisfy { $0.target == "/token" } && server.exchanges.count == 4)
    }

    @Test(arguments: [
        ("access_denied", "the sign-in was refused at https://x/"), ("expired_token", "the code U expired"),
    ])
    func a_denied_or_expired_code_ends_the_polling_with_a_sentence(code: String, sentence: String) async throws {
        let server = try Self.server(["authorization_pending", code])
        let settings = Self.settings(server)
        let prompt = Self.prompt()
        await #expect {
            _ = try await TokenEndpoint(timeout: 20).pollDevice(settings, prompt, sleep: { _ in })
        } throws: { error in
            guard let error = error as? SignInError else { return false }
            return error.isFinal && error.description.contains(sentence)
        }
        #expect(server.exchanges.count == 2)
    }

    @Test func a_code_past_its_time_is_not_polled_again() async throws {
        let server = try Self.server(Array(repeating: "authorization_pending", count: 100))
        let settings = Self.settings(server)
        let clock = Mutex(Date(timeIntervalSince1970: 0))
        let prompt = Self.prompt(expiresAt: Date(timeIntervalSince1970: 10), interval: 4)
        await #expect {
            _ = try await TokenEndpoint(timeout: 20).pollDevice(
                settings, prompt, now: { clock.withLock { $0 } }, sleep: { seconds in clock.withLock { $0 += seconds } }
            )
        } throws: { ($0 as? SignInError)?.description.contains("expired before it was entered") == true }
        #expect(server.exchanges.count == 2, "polled at 4 s and 8 s, not at 12 s")
    }
}

/// What every request to a service carries besides the protocol: an API key (`--header`), SAP's client and
/// language (`--sap-client`, `--sap-language`).
@Suite struct ServiceHeadersTests {
    @Test func every_request_carries_the_header_and_the_parameters_once() async throws {
        let server = try ScriptedHTTPServer { _ in TokenSourceTests.json("200 OK", "{}") }
        let transport = HTTPClientTransport(
            serviceOrigin: server.url("/svc/"), timeout: 20, headers: [("APIKey", "k-123")],
            parameters: [("sap-client", "100"), ("sap-language", "DE")])
        _ = try await transport.send(TransportRequest(url: server.url("/svc/Person?$top=5")))
        _ = try await transport.send(TransportRequest(url: server.url("/svc/Person?$skiptoken=5&sap-client=100")))
        _ = try await transport.send(TransportRequest(url: server.url("/svc/$metadata"), acceptsXML: true))
        let targets = server.exchanges.map(\.target)
        #expect(
            targets == [
                "/svc/Person?$top=5&sap-client=100&sap-language=DE",
                "/svc/Person?$skiptoken=5&sap-client=100&sap-language=DE",
                "/svc/$metadata?sap-client=100&sap-language=DE",
            ])
        #expect(server.exchanges.allSatisfy { $0.header("APIKey") == "k-123" })
    }
}

/// What a token source asks of the server, and what it never asks twice.
@Suite struct TokenSourceRequestTests {
    @Test func requests_that_need_a_person_at_once_share_one_device_code() async throws {
        let server = try ScriptedHTTPServer { exchange in
            if exchange.target == "/device" {
                return TokenSourceTests.json(
                    "200 OK",
                    #"{"device_code":"d","user_code":"WXYZ-ABCD","verification_uri":"https://x/device","interval":60}"#)
            }
            return TokenSourceTests.json("400 Bad Request", #"{"error":"authorization_pending"}"#)
        }
        let (store, directory) = try TokenSourceTests.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tokens = TokenSource(settings: DeviceGrantTests.settings(server), store: store)
        let sentences = await withTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        return try await tokens.authorization()
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(sentences.allSatisfy { $0 == "open https://x/device and enter the code WXYZ-ABCD" }, "\(sentences)")
        #expect(server.exchanges.filter { $0.target == "/device" }.count == 1)
    }

    @Test func a_device_endpoint_that_refuses_the_client_is_asked_once() async throws {
        let server = try ScriptedHTTPServer { _ in
            TokenSourceTests.json("401 Unauthorized", #"{"error":"invalid_client"}"#)
        }
        let (store, directory) = try TokenSourceTests.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let tokens = TokenSource(settings: DeviceGrantTests.settings(server), store: store)
        for _ in 0..<3 {
            await #expect(throws: SignInError.self) { _ = try await tokens.authorization() }
        }
        #expect(server.exchanges.count == 1, "\(server.exchanges.map(\.target))")
    }

    @Test func a_token_stored_for_another_token_endpoint_is_never_sent_to_this_one() async throws {
        let issued = Issued()
        let server = try TokenSourceTests.server(issued: issued) { $0 == "Bearer t1" }
        let (store, directory) = try TokenSourceTests.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let settings = TokenSourceTests.settings(server)
        // Given a token kept from another authorization server, for the same service and client
        try store.save(
            .init(
                serviceRoot: settings.serviceRoot, clientID: "client", tokenURL: "https://old.example/token",
                grant: "client-credentials", token: IssuedToken(accessToken: "old", refreshToken: "old-refresh")))
        // When this source signs in for a set under that service
        var forSet = settings
        forSet.serviceRoot = settings.serviceRoot + "Person/"
        let transport = HTTPClientTransport(
            serviceOrigin: server.url("/svc/"), timeout: 20, tokens: TokenSource(settings: forSet, store: store))
        #expect(try await transport.send(TransportRequest(url: server.url("/svc/P"))).status == 200)
        // Then the old token went nowhere, and the new one is kept for this sign-in
        #expect(!server.exchanges.contains { $0.header("Authorization") == "Bearer old" })
        #expect(issued.count == 1)
        #expect(try store.entry(for: forSet)?.token.accessToken == "t1")
    }
}

/// Which TLS settings the authorization server is spoken to with.
@Suite struct TokenEndpointTLSTests {
    @Test func the_service_settings_on_its_origin_the_system_cas_besides_elsewhere_and_never_insecure() {
        let tls = ClientTLS(certificateFile: "/c.pem", keyFile: "/k.pem", caFile: "/ca.pem", insecure: true)
        let same = tls.forTokenEndpoint("https://erp.example/oauth/token", serviceRoot: "https://erp.example/sap/")
        #expect(same?.insecure == false && same?.caFileAdds == false && same?.certificateFile == "/c.pem")
        let elsewhere = tls.forTokenEndpoint("https://login.example/token", serviceRoot: "https://erp.example/sap/")
        #expect(elsewhere?.insecure == false && elsewhere?.caFileAdds == true && elsewhere?.certificateFile == "/c.pem")
    }
}
