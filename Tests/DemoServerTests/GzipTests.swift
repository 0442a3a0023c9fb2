import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

@testable import DemoServer

/// Issue 17: the built-in service gzips what is worth it for a client that asks, and the product's transport
/// (which asks) reads the same document back.
struct GzipTests {
    @Test func accept_encoding_is_read_as_rfc_9110_says() {
        #expect(ODataResponder.acceptsGzip("gzip, deflate"))
        #expect(ODataResponder.acceptsGzip("deflate;q=0.5, GZIP;q=0.8"))
        #expect(ODataResponder.acceptsGzip("*"))
        #expect(!ODataResponder.acceptsGzip("gzip;q=0"))
        #expect(!ODataResponder.acceptsGzip("deflate, br"))
        #expect(!ODataResponder.acceptsGzip(nil))
    }

    @Test func a_client_that_asks_gets_gzip_and_the_transport_reads_the_same_document() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let path = "Person?$expand=PersonCar/Car&$top=50"
        // (the test client decodes gzip itself: the wire size is the answer's Content-Length)
        let plain = try await service.get(path, headers: ["Accept-Encoding": "identity"])
        let zipped = try await service.get(path, headers: ["Accept-Encoding": "gzip"])
        #expect(plain.headers["content-encoding"] == nil)
        #expect(zipped.headers["content-encoding"] == "gzip" && zipped.headers["vary"] == "Accept-Encoding")
        let wire = try #require(zipped.headers["content-length"].flatMap(Int.init))
        #expect(wire * 4 < plain.body.count, "\(wire) against \(plain.body.count)")
        #expect(zipped.body == plain.body)
        // The product's transport asks for gzip and hands on the document itself
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: service.server.baseURL + path))
        #expect(response.headers["content-encoding"] == "gzip")
        #expect(Data(response.body) == plain.body)
        // A small answer goes as it is
        let small = try await service.get("Person(1)?$select=personID", headers: ["Accept-Encoding": "gzip"])
        #expect(small.body.count < ODataResponder.compressFrom)
        #expect(small.headers["content-encoding"] == nil)
    }
}
