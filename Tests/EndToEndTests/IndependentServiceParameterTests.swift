import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// SAP's client and language on every request, and an API key header (issue 35), against mock-sap, which answers
/// only its own client (100) and logs each request's query: `cardealer export` through the built binary.
@Suite(.enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)"))
struct IndependentServiceParameterTests {
    /// mock-sap's log from request `after` on: (path, query).
    static func logged(root: String, after: Int) async throws -> [(id: Int, path: String, query: String)] {
        let origin = root.components(separatedBy: "/sap/").first ?? root
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: origin + "/_mock/requests?limit=500"))
        guard case .array(let entries)? = try JSONReader().read(response.body)["results"] else { return [] }
        return entries.compactMap { entry in
            guard case .number(let id)? = entry["id"], let number = Int(id), number > after,
                case .string(let path)? = entry["path"]
            else { return nil }
            var query = ""
            if case .string(let text)? = entry["query"] { query = text }
            return (number, path, query)
        }
    }

    @Test func every_request_names_the_client_and_language_and_another_client_is_another_cache() async throws {
        let root = try #require(mockSAPRoot)
        let directory = try BuiltProducts.temporaryDirectory("cardealer-sap-client")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let environment = ["XDG_CACHE_HOME": directory + "/cache", "CARDEALER_TEST_KEY": "key-Quokka-2718"]
        let before = try await Self.logged(root: root, after: 0).map(\.id).max() ?? 0
        // When a set is exported naming client 100 in German, with an API key from the environment
        let export = try await offThePool {
            try CommandLineTests.runWithStatus(
                [
                    "export", root, "ProductSet", "--sap-client", "100", "--sap-language", "de", "--header",
                    "APIKey=@env:CARDEALER_TEST_KEY",
                ], in: directory, environment: environment)
        }
        #expect(export.status == 0 && export.output.contains("HT-1000"), "\(export.output)")
        // Then every request the service saw for the set named both (other tests use the service meanwhile, but
        // not this set)
        let seen = try await Self.logged(root: root, after: before).filter { $0.path.hasSuffix("ProductSet") }
        #expect(!seen.isEmpty)
        for request in seen {
            #expect(
                request.query.contains("sap-client=100") && request.query.contains("sap-language=DE"),
                "\(request.path)?\(request.query)")
        }
        // And another client is refused in the service's words, never read from the first one's cache
        let other = try await offThePool {
            try CommandLineTests.runWithStatus(
                ["export", root, "ProductSet", "--sap-client", "200"], in: directory, environment: environment)
        }
        #expect(other.status != 0 && other.output.contains("Client 200 is not available"), "\(other.output)")
        // And without a client, the cache is another file
        _ = try await offThePool {
            try CommandLineTests.runWithStatus(
                ["export", root, "ProductSet"], in: directory, environment: environment)
        }
        let caches = try FileManager.default.contentsOfDirectory(atPath: directory + "/cache/cardealer").filter {
            $0.hasSuffix(".sqlite")
        }
        #expect(caches.count == 2, "\(caches)")
        // And the key is in none of them
        for cache in caches {
            let text = String(
                decoding: try Data(contentsOf: URL(fileURLWithPath: directory + "/cache/cardealer/" + cache)),
                as: UTF8.self)
            #expect(!text.contains("key-Quokka-2718"))
        }
    }
}
