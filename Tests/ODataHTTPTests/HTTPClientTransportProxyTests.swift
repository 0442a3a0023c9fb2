import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import ODataHTTP

/// The live transport through a proxy: the scripted raw server plays the proxy on 127.0.0.1:0.
@Suite struct HTTPClientTransportProxyTests {
    static let json = HTTPClientTransportTests.json
    static let ok = HTTPClientTransportTests.ok
    /// What a proxy answers to a `CONNECT` it accepts, as Squid says it (no body, no length).
    static let tunnelOpen = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
    static let secret = "s3cret-pw"

    /// A transport for `root` whose environment sets `variables` (`PROXY` in a value is the proxy's port).
    func transport(
        _ root: String, _ variables: [String: String], proxy: ScriptedHTTPServer? = nil
    ) throws -> HTTPClientTransport {
        let environment = variables.mapValues { $0.replacingOccurrences(of: "PROXY", with: "\(proxy?.port ?? 9)") }
        let credentials = Credentials(authorization: "Bearer svc-t0k")
        return try HTTPClientTransport(
            serviceRoot: root, environment: environment, timeout: 5, credentials: credentials
        )
    }

    @Test func through_http_proxy_a_request_is_tunnelled_to_its_host_and_the_answer_comes_back() async throws {
        // Given a proxy that opens every tunnel asked for and answers what comes through it
        let proxy = try ScriptedHTTPServer { exchange in
            exchange.head.hasPrefix("CONNECT ") ? .bytes(Self.tunnelOpen) : .bytes(Self.ok)
        }
        // and a transport for a service on a host only the proxy could reach, with http_proxy naming the proxy
        let environment = ["http_proxy": "http://proxyuser:\(Self.secret)@127.0.0.1:PROXY"]
        let transport = try transport("http://some.host.test/svc/", environment, proxy: proxy)
        #expect(transport.proxy?.description == "http://127.0.0.1:\(proxy.port)")
        // When two requests are sent
        let first = try await transport.send(TransportRequest(url: "http://some.host.test/svc/Person"))
        let second = try await transport.send(TransportRequest(url: "http://some.host.test/svc/Person(1)"))
        // Then the answers are the service's, through the proxy
        #expect(first.status == 200 && first.body == Self.json)
        #expect(second.status == 200)
        // AsyncHTTPClient opens a CONNECT tunnel to the host (for http too), with the proxy's credentials only
        let exchanges = proxy.exchanges
        try #require(exchanges.count == 3)
        #expect(exchanges[0].head.hasPrefix("CONNECT some.host.test:80 HTTP/1.1\r\n"))
        let basic = "Basic " + Data("proxyuser:\(Self.secret)".utf8).base64EncodedString()
        #expect(exchanges[0].header("Proxy-Authorization") == basic)
        #expect(exchanges[0].header("Authorization") == nil)
        // and sends the requests through it, with the service's credentials only, on the one kept-alive tunnel
        #expect(exchanges[1].head.hasPrefix("GET /svc/Person HTTP/1.1\r\n"))
        #expect(exchanges[1].header("Host") == "some.host.test")
        #expect(exchanges[1].header("Authorization") == "Bearer svc-t0k")
        #expect(exchanges[1].header("Proxy-Authorization") == nil)
        #expect(exchanges[2].head.hasPrefix("GET /svc/Person(1) HTTP/1.1\r\n"))
        #expect(exchanges.allSatisfy { $0.connection == 0 })
    }

    @Test func with_no_proxy_covering_the_host_the_request_goes_direct() async throws {
        // Given a proxy that would answer anything, named by http_proxy, and a no_proxy that covers the host
        let proxy = try ScriptedHTTPServer { exchange in
            exchange.head.hasPrefix("CONNECT ") ? .bytes(Self.tunnelOpen) : .bytes(Self.ok)
        }
        let environment = ["http_proxy": "127.0.0.1:PROXY", "no_proxy": "localhost,.host.test"]
        let transport = try transport("http://some.host.test/svc/", environment, proxy: proxy)
        #expect(transport.proxy == nil)
        // When a request is sent
        do {
            _ = try await transport.send(TransportRequest(url: "http://some.host.test/svc/Person"))
            Issue.record("some.host.test is not reachable directly; the request should have failed")
        } catch let error as ODataError {
            // Then it went direct (and failed: there is no such host), never to the proxy
            #expect(error.kind == .transport)
            #expect(!error.message.contains("proxy"), "\(error)")
        }
        #expect(proxy.connections == 0)
    }

    @Test func a_loopback_service_goes_direct_whatever_the_proxy_variables_say() async throws {
        // Given the service on 127.0.0.1 (as the built-in demo is), and proxy variables that name a proxy
        let service = try ScriptedHTTPServer { _ in .bytes(Self.ok) }
        let proxy = try ScriptedHTTPServer { _ in .hangUp }
        let environment = ["http_proxy": "127.0.0.1:PROXY", "all_proxy": "127.0.0.1:PROXY", "no_proxy": ""]
        let transport = try transport(service.url("/svc/"), environment, proxy: proxy)
        // When it is asked
        let response = try await transport.send(TransportRequest(url: service.url()))
        // Then the service answers and the proxy saw nothing
        #expect(response.status == 200)
        #expect(service.exchanges.count == 1)
        #expect(proxy.connections == 0)
    }

    @Test func a_proxy_that_refuses_the_connection_is_named_in_the_error_without_its_credentials() async throws {
        // Given http_proxy with credentials naming a port nothing listens on
        let environment = ["http_proxy": "http://proxyuser:\(Self.secret)@127.0.0.1:9"]
        let transport = try transport("http://some.host.test/svc/", environment)
        // When a request is sent
        do {
            _ = try await transport.send(TransportRequest(url: "http://some.host.test/svc/Person"))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then the sentence names the proxy and why, and the service's URL, never the proxy's credentials
            #expect(error.kind == .transport)
            #expect(error.message == "the proxy http://127.0.0.1:9 could not be reached: the connection was refused")
            #expect(error.description.hasSuffix("(http://some.host.test/svc/Person)"))
            for text in [error.description, String(reflecting: error)] {
                #expect(!text.contains(Self.secret) && !text.contains("proxyuser"), "\(text)")
            }
        }
    }

    @Test func a_proxy_that_refuses_the_tunnel_or_wants_credentials_says_so() async throws {
        // Given a proxy that forbids tunnels to port 80, asks for credentials for port 443, and answers nothing else
        let proxy = try ScriptedHTTPServer { exchange in
            if exchange.head.hasPrefix("CONNECT some.host.test:80 ") {
                return .bytes(ScriptedHTTPServer.response(status: "403 Forbidden", headers: [], body: []))
            }
            let challenge = #"Proxy-Authenticate: Basic realm="corp""#
            return .bytes(
                ScriptedHTTPServer.response(
                    status: "407 Proxy Authentication Required", headers: [challenge], body: []
                ))
        }
        let environment = ["http_proxy": "127.0.0.1:PROXY", "HTTPS_PROXY": "http://127.0.0.1:PROXY"]
        let cases = [
            (
                "http://some.host.test/svc/Person",
                "the proxy http://127.0.0.1:\(proxy.port) refused to open a tunnel to some.host.test:80"
                    + " (many proxies tunnel only to port 443)"
            ),
            (
                "https://some.host.test/svc/Person",
                "the proxy http://127.0.0.1:\(proxy.port) asks for credentials (HTTP 407): give them as"
                    + " http://user:password@host:port"
            ),
        ]
        for (url, sentence) in cases {
            // When a request is sent through it
            do {
                _ = try await transport(url, environment, proxy: proxy).send(TransportRequest(url: url))
                Issue.record("\(url) should have failed")
            } catch let error as ODataError {
                // Then the sentence says what the proxy did
                #expect(error.kind == .transport)
                #expect(error.message == sentence)
            }
        }
        #expect(
            proxy.exchanges.map { $0.head.components(separatedBy: "\r\n")[0] } == [
                "CONNECT some.host.test:80 HTTP/1.1", "CONNECT some.host.test:443 HTTP/1.1",
            ])
    }

    @Test func an_unusable_proxy_variable_stops_the_transport_with_a_sentence() {
        #expect {
            try HTTPClientTransport(
                serviceRoot: "https://some.host.test/svc/",
                environment: ["https_proxy": "https://u:\(Self.secret)@proxy.test"]
            )
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("https_proxy names an https:// proxy") && !text.contains(Self.secret)
        }
    }
}
