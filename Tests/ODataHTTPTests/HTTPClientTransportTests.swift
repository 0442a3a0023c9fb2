import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import ODataHTTP

/// The live transport against real sockets on 127.0.0.1: a scripted raw server for the shapes that matter.
@Suite struct HTTPClientTransportTests {
    static let json = Array(#"{"d":{"results":[{"personID":1,"firstName":"Ada","lastName":"Lovelace"}]}}"#.utf8)
    static let ok = ScriptedHTTPServer.response(body: json)
    /// The bound for tests about what comes back, not about when: far, so that a run of the whole suite (seen to hold
    /// every answer up for over 15 s at its busiest moments) does not turn them into timeouts.
    static let patient: TimeInterval = 60

    @Test func a_refused_connection_is_a_transport_error_with_a_sentence() async throws {
        // Given the real transport and a port nothing listens on
        let transport = HTTPClientTransport(timeout: Self.patient)
        // When a GET is sent there
        do {
            _ = try await transport.send(TransportRequest(url: "http://127.0.0.1:9/svc/Person"))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then it fails as a transport error naming the reason and the URL
            #expect(error.kind == .transport)
            #expect(error.message == "the connection was refused")
            #expect(error.description.hasPrefix("Could not reach the service: "))
            #expect(error.description.hasSuffix("(http://127.0.0.1:9/svc/Person)"))
        }
    }

    @Test func a_URL_that_is_not_http_is_refused_before_any_connection() async throws {
        let transport = HTTPClientTransport(timeout: Self.patient)
        for url in ["not a url", "ftp://127.0.0.1/svc/", "file:///etc/passwd", "http:///svc/Person"] {
            await #expect { try await transport.send(TransportRequest(url: url)) } throws: { error in
                (error as? ODataError)?.kind == .refused
                    && (error as? ODataError)?.message == "the link is not an http or https URL"
            }
        }
    }

    @Test func it_sends_the_OData_headers_and_the_credentials_but_never_puts_them_in_an_error() async throws {
        // Given a server that answers a first request (and says it closes) and hangs up on every later one
        let closing = ScriptedHTTPServer.response(body: Self.json, close: true)
        let server = try ScriptedHTTPServer { exchange in
            exchange.connection == 0 ? .bytes(closing, close: true) : .hangUp
        }
        let secret = "tok-3f9a-SECRET"
        let transport = HTTPClientTransport(
            timeout: Self.patient, credentials: Credentials(authorization: "Bearer " + secret))
        // When $metadata is asked for with a validator
        let response = try await transport.send(
            TransportRequest(
                url: server.url("/svc/$metadata"), headers: ["If-None-Match": #"W/"7""#], acceptsXML: true
            ))
        // Then the request carried the versions, the credentials, the validator, and asked for XML and compression
        #expect(response.status == 200)
        let sent = try #require(server.exchanges.first)
        #expect(sent.head.hasPrefix("GET /svc/$metadata HTTP/1.1"))
        #expect(sent.header("Accept") == "application/xml")
        #expect(sent.header("MaxDataServiceVersion") == "2.0")
        #expect(sent.header("DataServiceVersion") == "2.0")
        #expect(sent.header("Authorization") == "Bearer " + secret)
        #expect(sent.header("If-None-Match") == #"W/"7""#)
        #expect(sent.header("Accept-Encoding")?.contains("gzip") == true)

        // When a JSON request fails
        do {
            _ = try await transport.send(TransportRequest(url: server.url()))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then it asked for JSON, and the error says why without the credentials
            #expect(server.exchanges.last?.header("Accept") == "application/json")
            #expect(error.kind == .transport)
            #expect(!error.description.contains(secret) && !String(reflecting: error).contains(secret))
        }
    }

    @Test func each_dialect_gets_its_own_version_headers_and_metadata_before_it_is_known_gets_both() async throws {
        let server = try ScriptedHTTPServer { _ in .bytes(ScriptedHTTPServer.response(body: Self.json), close: false) }
        let transport = HTTPClientTransport(timeout: Self.patient)
        _ = try await transport.send(TransportRequest(url: server.url("/svc/$metadata"), acceptsXML: true))
        _ = try await transport.send(TransportRequest(url: server.url("/svc/Orders"), dialect: .v4))
        _ = try await transport.send(TransportRequest(url: server.url("/svc/Person"), dialect: .v2))
        let sent = server.exchanges
        try #require(sent.count == 3)
        // $metadata, dialect unknown: both kinds of version header, each ignored by the other kind of server
        #expect(sent[0].header("MaxDataServiceVersion") == "2.0" && sent[0].header("OData-MaxVersion") == "4.0")
        // v4: OData-Version headers and minimal-metadata JSON, nothing of v2's
        #expect(sent[1].header("OData-MaxVersion") == "4.0" && sent[1].header("OData-Version") == "4.0")
        #expect(sent[1].header("Accept") == "application/json;odata.metadata=minimal")
        #expect(sent[1].header("MaxDataServiceVersion") == nil && sent[1].header("DataServiceVersion") == nil)
        // v2: its own, nothing of v4's
        #expect(sent[2].header("DataServiceVersion") == "2.0" && sent[2].header("OData-MaxVersion") == nil)
        #expect(sent[2].header("Accept") == "application/json")
    }

    @Test func a_gzip_or_deflate_body_is_decompressed() async throws {
        // Given a server that sends the same JSON gzip-compressed, then deflate-compressed
        let gzip = Data(
            base64Encoded:
                "H4sIAAAAAAACA6tWSlGyqlYqSi0uzSkpVrKKrlYqSC0qzs/zdFGyMtRRSsssKi7xS8xNVbJSckxJVNJRykmEC/jkl6XmJCanKtXG1tYCAOQXyWRKAAAA"
        )!
        let deflate = Data(
            base64Encoded:
                "eJyrVkpRsqpWKkotLs0pKVayiq5WKkgtKs7P83RRsjLUUUrLLCou8UvMTVWyUnJMSVTSUcpJhAv45Jel5iQmpyrVxtbWAgCYIxjR")!
        let server = try ScriptedHTTPServer { exchange in
            let (encoding, body) = exchange.head.hasPrefix("GET /gzip") ? ("gzip", gzip) : ("deflate", deflate)
            return .bytes(
                ScriptedHTTPServer.response(
                    headers: ["Content-Type: application/json", "Content-Encoding: \(encoding)"], body: Array(body)
                ))
        }
        let transport = HTTPClientTransport(timeout: Self.patient)
        // When both are fetched
        for path in ["/gzip", "/deflate"] {
            let response = try await transport.send(TransportRequest(url: server.url(path)))
            // Then the body is the JSON itself
            #expect(response.status == 200)
            #expect(response.body == Self.json, "\(path)")
        }
    }

    @Test func a_body_past_the_limit_is_a_transport_error_however_it_comes() async throws {
        // Given a 1 KiB limit and a server sending 4 KiB plain, announcing 1 GiB, or 64 KiB gzip-compressed into 97 bytes
        let bomb = Data(
            base64Encoded:
                "H4sIAAAAAAACA+3BgQAAAACAIKX96RapCgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAGoLUUloAAABAA=="
        )!
        let server = try ScriptedHTTPServer { exchange in
            if exchange.head.hasPrefix("GET /plain") {
                return .bytes(ScriptedHTTPServer.response(body: Array(repeating: 0x20, count: 4_096)))
            } else if exchange.head.hasPrefix("GET /announced") {
                return .bytes(
                    ScriptedHTTPServer.response(headers: ["Content-Length: 1073741824"], body: []), close: true)
            }
            return .bytes(ScriptedHTTPServer.response(headers: ["Content-Encoding: gzip"], body: Array(bomb)))
        }
        let transport = HTTPClientTransport(timeout: Self.patient, maxBodyBytes: 1_024)
        for path in ["/plain", "/announced", "/bomb"] {
            // When it is fetched
            do {
                _ = try await transport.send(TransportRequest(url: server.url(path)))
                Issue.record("\(path) should have failed")
            } catch let error as ODataError {
                // Then it is refused (asking again would get the same), saying why
                #expect(error.kind == .refused)
                #expect(error.message == "the answer is larger than 1 KiB, the limit for one answer", "\(path)")
            }
        }
    }

    @Test func an_HTTP_500_comes_back_as_a_response_with_lower_cased_header_names() async throws {
        // Given a server that fails with an OData error
        let body = Array(#"{"error":{"code":"Boom","message":{"lang":"en","value":"Broken."}}}"#.utf8)
        let server = try ScriptedHTTPServer { _ in
            .bytes(
                ScriptedHTTPServer.response(
                    status: "500 Internal Server Error",
                    headers: ["Content-Type: application/json", "X-SAP-Trace: A1"], body: body
                ))
        }
        // When it is asked
        let response = try await HTTPClientTransport(timeout: Self.patient).send(TransportRequest(url: server.url()))
        // Then the answer is a response, not an error
        #expect(response.status == 500)
        #expect(response.body == body)
        #expect(response.headers["content-type"] == "application/json")
        #expect(response.headers["x-sap-trace"] == "A1")
    }

    @Test func cancelling_the_calling_task_aborts_the_request_promptly() async throws {
        // Given a server that never answers, and a transport that would wait a minute
        let server = try ScriptedHTTPServer { _ in .stall }
        let transport = HTTPClientTransport(timeout: 60)
        let task = Task { try await transport.send(TransportRequest(url: server.url())) }
        #expect(try await eventually { server.exchanges.count == 1 })
        // When the calling task is cancelled
        // Then it throws CancellationError at once, and the connection is closed
        try await expectCancelledPromptly(task, server: server)
    }

    /// A head and the first half of a body that announces its whole length.
    static let halfAnswer = Array(ScriptedHTTPServer.response(body: json).dropLast(json.count / 2))

    /// A server that says nothing after reading the request, and one that stops half way through the body.
    static let silences: [ScriptedHTTPServer.Reply] = [.stall, .stallAfter(halfAnswer)]

    @Test(arguments: silences)
    func a_server_that_goes_silent_gives_a_timed_out_sentence(_ silence: ScriptedHTTPServer.Reply) async throws {
        // Given a server that goes silent (before the head, or after half the body)
        let server = try ScriptedHTTPServer { _ in silence }
        // When a transport with a short timeout asks it
        do {
            _ = try await HTTPClientTransport(timeout: 0.3).send(TransportRequest(url: server.url()))
            Issue.record("the request should have timed out")
        } catch let error as ODataError {
            // Then it gives up with a sentence that says so
            #expect(error.kind == .transport)
            #expect(error.message.hasPrefix("the request timed out"), "\(error.message)")
        }
    }

    @Test func cancelling_while_the_body_arrives_aborts_the_request_promptly() async throws {
        // Given a server that sends a head and half a body, then nothing
        let server = try ScriptedHTTPServer { _ in .stallAfter(Self.halfAnswer) }
        let transport = HTTPClientTransport(timeout: 60)
        let task = Task { try await transport.send(TransportRequest(url: server.url())) }
        #expect(try await eventually { server.exchanges.count == 1 })
        // Let the head arrive so that the body is being read (the only sleep: nothing outside shows that moment)
        try await Task.sleep(for: .milliseconds(50))
        // When the calling task is cancelled
        // Then it throws CancellationError at once, and the connection is closed
        try await expectCancelledPromptly(task, server: server)
    }

    @Test func a_connection_closed_half_way_through_the_body_is_a_transport_error() async throws {
        // Given a server that announces a body, sends half of it, and closes
        let server = try ScriptedHTTPServer { _ in .bytes(Self.halfAnswer, close: true) }
        // When it is asked
        do {
            _ = try await HTTPClientTransport(timeout: Self.patient).send(TransportRequest(url: server.url()))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then it is a transport error that says the answer was cut short
            #expect(error.kind == .transport)
            #expect(error.message == "the connection closed before the whole answer arrived")
        }
    }

    /// swiftlang/swift-corelibs-foundation#5285: URLSession on Linux aborted the process on exactly this.
    @Test func a_server_closing_a_reused_keep_alive_connection_without_answering_never_aborts() async throws {
        // Given a server that answers the first request on a connection with a keep-alive 200, and closes
        // cleanly, without writing a byte, when a second request arrives on the same connection
        let server = try ScriptedHTTPServer { exchange in exchange.indexOnConnection == 0 ? .bytes(Self.ok) : .hangUp }
        let transport = HTTPClientTransport(timeout: Self.patient)
        // When two GETs are sent one after the other
        let first = try await transport.send(TransportRequest(url: server.url()))
        #expect(first.status == 200)
        do {
            let second = try await transport.send(TransportRequest(url: server.url()))
            // Then the second is either answered (sent again on a fresh connection)…
            #expect(second.status == 200)
            #expect(second.body == Self.json)
        } catch let error as ODataError {
            // …or a transport error, and the process is still here
            #expect(error.kind == .transport)
        }
        // and the fault really happened: the second request went out on the first connection
        #expect(server.exchanges.contains { $0.connection == 0 && $0.indexOnConnection == 1 })
    }

    @Test func a_server_closing_right_after_a_keep_alive_answer_is_asked_again_on_a_fresh_connection() async throws {
        // Given a server that promises keep-alive but closes each connection right after its first answer
        let server = try ScriptedHTTPServer { _ in .bytes(Self.ok, close: true) }
        let transport = HTTPClientTransport(timeout: Self.patient)
        // When GETs follow one another at once (the client may pick the closed connection before it notices)
        for _ in 0..<20 {
            // Then each is answered, on a connection of its own
            let response = try await transport.send(TransportRequest(url: server.url()))
            #expect(response.status == 200)
        }
        #expect(server.exchanges.allSatisfy { $0.indexOnConnection == 0 })
    }

    @Test func a_request_the_server_hangs_up_on_is_sent_once_more_on_another_connection_then_reported() async throws {
        // Given a server that hangs up on every request without answering
        let server = try ScriptedHTTPServer { _ in .hangUp }
        // When a GET is sent
        do {
            _ = try await HTTPClientTransport(timeout: Self.patient).send(TransportRequest(url: server.url()))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then it was tried twice, each on its own connection, and the error says what happened
            #expect(error.kind == .transport)
            #expect(error.message == "the server closed the connection without answering")
        }
        #expect(server.exchanges.map(\.connection) == [0, 1])
    }

    @Test func redirects_are_followed_within_the_origin_only() async throws {
        // Given a server elsewhere (another port is another origin) and one that redirects within itself and there
        let elsewhere = try ScriptedHTTPServer { _ in .bytes(Self.ok) }
        let server = try ScriptedHTTPServer { exchange in
            if exchange.head.hasPrefix("GET /moved") {
                return .bytes(
                    ScriptedHTTPServer.response(status: "302 Found", headers: ["Location: /svc/Person"], body: []))
            } else if exchange.head.hasPrefix("GET /away") {
                let location = "Location: \(elsewhere.url())"
                return .bytes(
                    ScriptedHTTPServer.response(status: "307 Temporary Redirect", headers: [location], body: []))
            }
            return .bytes(Self.ok)
        }
        let transport = HTTPClientTransport(
            timeout: Self.patient, credentials: Credentials(authorization: "Bearer t0k"))
        // When a redirect within the origin is met, it is followed, credentials included
        let moved = try await transport.send(TransportRequest(url: server.url("/moved")))
        #expect(moved.status == 200)
        #expect(server.exchanges.last?.head.hasPrefix("GET /svc/Person ") == true)
        #expect(server.exchanges.last?.header("Authorization") == "Bearer t0k")
        // When a redirect to another origin is met, it comes back as the 3xx and nothing is sent there
        let away = try await transport.send(TransportRequest(url: server.url("/away")))
        #expect(away.status == 307)
        #expect(away.headers["location"] == elsewhere.url())
        #expect(elsewhere.exchanges.isEmpty)
    }

    @Test func cookies_the_service_sets_go_back_to_it_through_redirects_and_never_into_the_response() async throws {
        // Given a gateway that logs on through a redirect which sets its session cookie
        let server = try ScriptedHTTPServer { exchange in
            if exchange.head.hasPrefix("GET /svc/$metadata HTTP") {
                return .bytes(
                    ScriptedHTTPServer.response(
                        status: "302 Found",
                        headers: [
                            "Location: /svc/$metadata?sap-client=100",
                            "Set-Cookie: SAP_SESSIONID_GW_100=s3cr3t; path=/; HttpOnly",
                            "Set-Cookie: sap-usercontext=sap-client=100; path=/",
                        ],
                        body: []))
            }
            return .bytes(Self.ok)
        }
        let transport = HTTPClientTransport(timeout: Self.patient)
        // When $metadata is asked for, then a page
        let metadata = try await transport.send(TransportRequest(url: server.url("/svc/$metadata"), acceptsXML: true))
        let page = try await transport.send(TransportRequest(url: server.url("/svc/Person")))
        // Then the redirected request and the next one carry the session, and no response passes it on
        #expect(metadata.status == 200 && page.status == 200)
        let sent = server.exchanges.map { $0.header("Cookie") }
        #expect(
            sent == [
                nil, "SAP_SESSIONID_GW_100=s3cr3t; sap-usercontext=sap-client=100",
                "SAP_SESSIONID_GW_100=s3cr3t; sap-usercontext=sap-client=100",
            ])
        #expect(metadata.headers["set-cookie"] == nil)
        // And another transport (another service) has none of them
        _ = try await HTTPClientTransport(timeout: Self.patient).send(TransportRequest(url: server.url("/svc/Person")))
        #expect(server.exchanges.last?.header("Cookie") == nil)
    }

    @Test func a_released_transport_shuts_its_client_down_without_tripping_its_assertion() async throws {
        // Given a transport that has served a request over a kept-alive connection
        let server = try ScriptedHTTPServer { _ in .bytes(Self.ok) }
        weak var client: AnyObject?
        do {
            let transport = HTTPClientTransport(timeout: Self.patient)
            client = transport.client
            #expect(try await transport.send(TransportRequest(url: server.url())).status == 200)
        }
        // When the transport is released, its client is shut down and then freed (a debug build traps otherwise)
        #expect(try await eventually { client == nil })
    }

    /// Cancels `task`, expects `CancellationError` within 5 s, and the stalled connection closed by the client.
    func expectCancelledPromptly(
        _ task: Task<TransportResponse, any Error>, server: ScriptedHTTPServer,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        // Well within the transport's 60 s: what matters is that the wait ended on the cancel, not on a timeout
        // (a machine busy building can take seconds to run the cancelled task again).
        #expect(ContinuousClock.now - cancelled < .seconds(20), sourceLocation: sourceLocation)
        switch result {
        case .success: Issue.record("the request should have been cancelled", sourceLocation: sourceLocation)
        case .failure(let error): #expect(error is CancellationError, "\(error)", sourceLocation: sourceLocation)
        }
        // The close itself may wait for a busy machine's event loop; the server waits 30 s for it
        #expect(try await eventually(seconds: 25) { server.stallsEndedByClient == 1 }, sourceLocation: sourceLocation)
    }
}
