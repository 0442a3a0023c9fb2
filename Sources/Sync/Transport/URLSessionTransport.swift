import Foundation
import ODataCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The live transport: URLSession (libcurl on Linux).
///
/// Sends `Accept: application/json` (XML for `$metadata`), `MaxDataServiceVersion: 2.0`
/// and `DataServiceVersion: 2.0`; libcurl negotiates gzip and decompresses. Credentials
/// come from the environment — `CARDEALER_BEARER_TOKEN`, or `CARDEALER_USER` with
/// `CARDEALER_PASSWORD` for basic auth — and are never logged.
public final class URLSessionTransport: ODataTransport {
    let session: URLSession
    let authorization: String?

    /// - Parameters:
    ///   - timeout: seconds before a request with no answer fails.
    ///   - environment: where credentials are read.
    public convenience init(timeout: TimeInterval = 30, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(timeout: timeout, credentials: Credentials(authorization: Self.authorization(from: environment)))
    }

    /// - Parameters:
    ///   - timeout: seconds before a request with no answer fails.
    ///   - credentials: what to authenticate with (``Credentials/load(environment:)``: environment or private file).
    public init(timeout: TimeInterval = 30, credentials: Credentials) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 4
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        authorization = credentials.authorization
    }

    /// The `Authorization` header value the environment asks for, if any.
    static func authorization(from environment: [String: String]) -> String? {
        if let token = environment["CARDEALER_BEARER_TOKEN"], !token.isEmpty { return "Bearer " + token }
        if let user = environment["CARDEALER_USER"], !user.isEmpty {
            let pair = user + ":" + (environment["CARDEALER_PASSWORD"] ?? "")
            return "Basic " + Data(pair.utf8).base64EncodedString()
        }
        return nil
    }

    public func get(_ request: TransportRequest) async throws -> TransportResponse {
        guard let url = URL(string: request.url) else {
            throw ODataError(kind: .transport, message: "the URL is not valid", url: request.url)
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = "GET"
        urlRequest.setValue(request.acceptsXML ? "application/xml" : "application/json", forHTTPHeaderField: "Accept")
        urlRequest.setValue("2.0", forHTTPHeaderField: "MaxDataServiceVersion")
        urlRequest.setValue("2.0", forHTTPHeaderField: "DataServiceVersion")
        if let authorization { urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization") }
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else {
                throw ODataError(kind: .transport, message: "the answer is not HTTP", url: request.url)
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            return TransportResponse(status: http.statusCode, headers: headers, body: Array(data))
        } catch let error as ODataError {
            throw error
        } catch {
            if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw CancellationError() }
            throw ODataError(kind: .transport, message: Self.sentence(for: error), url: request.url)
        }
    }

    /// A short human reason for a URLSession failure.
    static func sentence(for error: Error) -> String {
        guard let urlError = error as? URLError else { return String(describing: error) }
        switch urlError.code {
        case .timedOut: return "the request timed out"
        case .cannotConnectToHost: return "the connection was refused"
        case .cannotFindHost, .dnsLookupFailed: return "the host name could not be resolved"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "there is no network connection"
        default: return urlError.localizedDescription
        }
    }
}
