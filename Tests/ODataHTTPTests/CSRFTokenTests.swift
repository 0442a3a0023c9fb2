import CarDealerTestSupport
import Foundation
import ODataCore
import Synchronization
import Testing

@testable import ODataHTTP

/// SAP Gateway's CSRF protection, played by a scripted server on 127.0.0.1: a token fetched before the first write,
/// sent with every write, fetched again once when the service says it is required.
@Suite struct CSRFTokenTests {
    static func answer(_ status: String, _ headers: [String] = [], close: Bool = false) -> ScriptedHTTPServer.Reply {
        .bytes(ScriptedHTTPServer.response(status: status, headers: headers, body: [], close: close), close: close)
    }

    @Test func writes_carry_the_token_and_an_expired_one_is_fetched_again_once() async throws {
        // Given a gateway that hands out tok1, then expires it and hands out tok2
        let issued = Mutex(0)
        let server = try ScriptedHTTPServer { exchange in
            let method = exchange.head.prefix { $0 != " " }
            if method == "GET" {
                guard exchange.header("X-CSRF-Token") == "Fetch" else { return Self.answer("200 OK") }
                let token = issued.withLock { count -> String in
                    count += 1
                    return "tok\(count)"
                }
                return Self.answer("200 OK", ["X-CSRF-Token: \(token)"])
            }
            // A write: the body is not read, so the connection closes after the answer.
            if exchange.header("X-CSRF-Token") == "tok2" {
                return Self.answer("204 No Content", ["ETag: W/\"2\""], close: true)
            }
            return Self.answer("403 Forbidden", ["X-CSRF-Token: Required"], close: true)
        }
        defer { server.stop() }
        let transport = try HTTPClientTransport(serviceRoot: server.url("/svc/"), environment: [:], timeout: 5)
        // When an update is sent
        let response = try await transport.send(
            TransportRequest(
                method: .merge, url: server.url("/svc/Car(1)"), headers: ["Content-Type": "application/json"],
                body: Array(#"{"model":"Ka"}"#.utf8)))
        // Then: fetch tok1, write with it (refused as expired), fetch tok2, write with it (applied)
        #expect(response.status == 204 && response.etag == "W/\"2\"")
        let seen = server.exchanges.map {
            ($0.head.prefix { $0 != " " } + " " + $0.target, $0.header("X-CSRF-Token") ?? "-")
        }
        #expect(seen.map(\.0) == ["GET /svc/", "MERGE /svc/Car(1)", "GET /svc/", "MERGE /svc/Car(1)"])
        #expect(seen.map(\.1) == ["Fetch", "tok1", "Fetch", "tok2"])
        // And the next write reuses tok2 without asking again
        _ = try await transport.send(TransportRequest(method: .delete, url: server.url("/svc/Car(1)")))
        #expect(server.exchanges.count == 5 && server.exchanges.last?.header("X-CSRF-Token") == "tok2")
        // And reads never carry or fetch a token
        _ = try await transport.send(TransportRequest(url: server.url("/svc/Car")))
        #expect(server.exchanges.last?.header("X-CSRF-Token") == nil)
    }

    @Test func a_service_without_csrf_protection_is_asked_once_and_gets_no_token() async throws {
        let server = try ScriptedHTTPServer { exchange in
            exchange.head.hasPrefix("GET") ? Self.answer("200 OK") : Self.answer("204 No Content", close: true)
        }
        defer { server.stop() }
        let transport = try HTTPClientTransport(serviceRoot: server.url("/svc/"), environment: [:], timeout: 5)
        for _ in 0..<3 {
            _ = try await transport.send(
                TransportRequest(method: .merge, url: server.url("/svc/Car(1)"), body: Array("{}".utf8)))
        }
        #expect(server.exchanges.map { $0.head.prefix { $0 != " " } } == ["GET", "MERGE", "MERGE", "MERGE"])
        #expect(
            server.exchanges.allSatisfy { $0.header("X-CSRF-Token") == nil || $0.header("X-CSRF-Token") == "Fetch" })
    }

    @Test func a_url_that_named_an_entity_set_fetches_the_token_at_the_root_the_session_found() async throws {
        let server = try ScriptedHTTPServer { exchange in
            exchange.head.hasPrefix("GET")
                ? Self.answer("200 OK", ["X-CSRF-Token: tok"]) : Self.answer("204 No Content", close: true)
        }
        defer { server.stop() }
        // Given a transport made for the URL the user gave (an entity set), then told the service's root
        let transport = try HTTPClientTransport(serviceRoot: server.url("/svc/Car"), environment: [:], timeout: 5)
        transport.serviceRootFound(server.url("/svc/"))
        // (a root on another origin is not taken)
        transport.serviceRootFound("http://elsewhere.example/svc/")
        // When a write is sent
        _ = try await transport.send(
            TransportRequest(method: .merge, url: server.url("/svc/Car(1)"), body: Array("{}".utf8)))
        // Then the token is fetched at the root, not by reading the set whole
        #expect(
            server.exchanges.map { $0.head.prefix { $0 != " " } + " " + $0.target } == [
                "GET /svc/", "MERGE /svc/Car(1)",
            ])
    }
}
