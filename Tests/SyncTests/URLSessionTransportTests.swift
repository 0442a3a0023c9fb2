import Foundation
import ODataCore
import Testing

@testable import Sync

@Suite struct URLSessionTransportTests {
    @Test func a_refused_connection_is_a_transport_error_with_a_sentence() async throws {
        // Given the real transport and a port nothing listens on
        let transport = URLSessionTransport(timeout: 5)
        // When a GET is sent there
        do {
            _ = try await transport.get(TransportRequest(url: "http://127.0.0.1:9/svc/Person"))
            Issue.record("the request should have failed")
        } catch let error as ODataError {
            // Then it fails as a transport error naming the URL
            #expect(error.kind == .transport)
            #expect(error.description.hasPrefix("Could not reach the service: "))
            #expect(error.description.hasSuffix("(http://127.0.0.1:9/svc/Person)"))
        }
    }

    @Test func credentials_come_from_the_environment_bearer_first() {
        // Given environments with a token, with a user and password, and with neither
        let bearer = URLSessionTransport.authorization(from: ["CARDEALER_BEARER_TOKEN": "t0k", "CARDEALER_USER": "u"])
        let basic = URLSessionTransport.authorization(from: ["CARDEALER_USER": "alice", "CARDEALER_PASSWORD": "s3cret"])
        let none = URLSessionTransport.authorization(from: [:])
        // Then the header is bearer, basic, or absent
        #expect(bearer == "Bearer t0k")
        #expect(basic == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
        #expect(none == nil)
    }
}
