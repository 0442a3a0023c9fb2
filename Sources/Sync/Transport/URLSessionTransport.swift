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
            let (data, response) = try await Self.load(urlRequest, in: session)
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

    /// `session.data(for:)` without its cancellation deadlock.
    ///
    /// On Linux, `data(for:)` cancels its `URLSessionTask` synchronously from the task-cancellation
    /// handler, which runs under the cancelled Swift task's status lock; if the transfer completes at
    /// that moment, URLSession's queue resumes the continuation, which needs the same lock, while the
    /// handler waits for that queue: both stop for good (found by the fault soak, seen in gdb). Here the
    /// cancellation is sent asynchronously instead, outside the lock.
    static func load(_ request: URLRequest, in session: URLSession) async throws -> (Data, URLResponse) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            DispatchQueue.global().async { handle.cancel() }
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

/// The data task of one ``URLSessionTransport/load(_:in:)``, cancellable before or after it starts.
/// `@unchecked Sendable`: `lock` protects both fields.
private final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var isCancelled = false

    /// Resumes `task`, or cancels it at once when cancellation came first.
    func start(_ task: URLSessionDataTask) {
        let cancelled = lock.withLock {
            self.task = task
            return isCancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            isCancelled = true
            return self.task
        }
        task?.cancel()
    }
}
