import AsyncHTTPClient
import DemoServer
import Foundation
import NIOCore
import NIOHTTP1
import ODataCore

/// A live demo server on 127.0.0.1:0 and a real HTTP client (AsyncHTTPClient, as the product's
/// transport; URLSession on Linux can abort the process when a server closes a kept-alive connection).
struct LiveService {
    let server: RunningDemoServer

    static func start(pageSize: Int = 100) async throws -> LiveService {
        LiveService(server: try await DemoServer.start(DemoServerConfiguration(pageSize: pageSize)))
    }

    /// A server on a data file of its own (writes change it; the shared default file must stay as generated).
    static func startPrivate(people: Int = 20) async throws -> LiveService {
        let path = NSTemporaryDirectory() + "demo-writes-\(UUID().uuidString).sqlite"
        return LiveService(server: try await DemoServer.start(DemoServerConfiguration(people: people, dataPath: path)))
    }

    /// Status, headers and body of `GET base + relative`.
    func get(
        _ relative: String, headers: [String: String] = [:], method: String = "GET", body: String? = nil
    ) async throws
        -> (status: Int, headers: [String: String], body: Data)
    {
        let url = relative.hasPrefix("http") ? relative : server.baseURL + relative
        var request = HTTPClientRequest(url: url)
        request.method = HTTPMethod(rawValue: method)
        request.headers.add(name: "Accept", value: "application/json")
        if let body {
            request.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        var fields: [String: String] = [:]
        for (name, value) in response.headers {
            let name = name.lowercased()
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return (Int(response.status.code), fields, Data(body.readableBytesView))
    }

    /// The decoded payload of a 200 response.
    func payload(_ relative: String, headers: [String: String] = [:]) async throws -> ODataPayload {
        let response = try await get(relative, headers: headers)
        guard response.status == 200 else {
            throw ODataError(
                kind: .service, message: "HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try PayloadDecoder(serviceRoot: server.baseURL).decode(Array(response.body))
    }

    func collection(_ relative: String) async throws -> ODataCollection {
        guard case .collection(let collection) = try await payload(relative) else {
            throw ODataError(kind: .service, message: "not a collection: \(relative)")
        }
        return collection
    }
}
