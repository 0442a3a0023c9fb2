import DemoServer
import Foundation
import ODataCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A live demo server on 127.0.0.1:0 and a real HTTP client (URLSession) to talk to it.
struct LiveService {
    let server: RunningDemoServer

    static func start(pageSize: Int = 100) async throws -> LiveService {
        LiveService(server: try await DemoServer.start(DemoServerConfiguration(pageSize: pageSize)))
    }

    /// Status, headers and body of `GET base + relative`.
    func get(_ relative: String, headers: [String: String] = [:], method: String = "GET") async throws
        -> (status: Int, headers: [String: String], body: Data) {
        let url = relative.hasPrefix("http") ? relative : server.baseURL + relative
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields[String(describing: name).lowercased()] = String(describing: value) }
        return (http.statusCode, fields, data)
    }

    /// The decoded payload of a 200 response.
    func payload(_ relative: String, headers: [String: String] = [:]) async throws -> ODataPayload {
        let response = try await get(relative, headers: headers)
        guard response.status == 200 else {
            throw ODataError(kind: .service, message: "HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return try VerboseJSONDecoder(serviceRoot: server.baseURL).decode(Array(response.body))
    }

    func collection(_ relative: String) async throws -> ODataCollection {
        guard case .collection(let collection) = try await payload(relative) else {
            throw ODataError(kind: .service, message: "not a collection: \(relative)")
        }
        return collection
    }
}
