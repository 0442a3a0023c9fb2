import Foundation
import Testing

@testable import ODataHTTP

@Suite struct CredentialsTests {
    @Test func credentials_come_from_the_environment_bearer_first() throws {
        // Given environments with a token, with a user and password, and with neither (nor a file)
        let bearer = try Credentials.load(environment: ["CARDEALER_BEARER_TOKEN": "t0k", "CARDEALER_USER": "u"])
        let basic = try Credentials.load(environment: ["CARDEALER_USER": "alice", "CARDEALER_PASSWORD": "s3cret"])
        let none = try Credentials.load(environment: ["CARDEALER_CREDENTIALS": "/nonexistent/credentials"])
        // Then the header is bearer, basic, or absent, and the user is kept for the cache's identity
        #expect(bearer.authorization == "Bearer t0k")
        #expect(bearer.user == "u")
        #expect(basic.authorization == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
        #expect(basic.user == "alice")
        #expect(none == Credentials())
    }
}
