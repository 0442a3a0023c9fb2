import Foundation
import ODataCore
import Synchronization

/// An ``ODataTransport`` decorator that writes `request_start` / `request_end` lines to a ``TraceLog``.
///
/// `bytes` is the response body as the transport returned it (after any gzip decoding), `wire` the body as it
/// crossed the network (the `Content-Length` of an encoded answer; else `bytes`); `ms` the wall time of the
/// whole request. A request that throws ends with `status` 0 and `error`.
struct TracingTransport: ODataTransport {
    let base: any ODataTransport
    let log: TraceLog

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await traced(request, bytesSoFar: { 0 }) {
            let response = try await base.send(request)
            return (response, response.body.count, Self.wireBytes(response))
        }
    }

    /// A stream saved to a file, traced as a request whose `bytes` are those written; streamed by `base`.
    func download(_ request: TransportRequest, into sink: DownloadSink) async throws -> TransportResponse {
        let counted = Mutex(0)
        let counting = DownloadSink(
            started: sink.started,
            received: { bytes in
                counted.withLock { $0 += bytes.count }
                try sink.received(bytes)
            })
        return try await traced(request, bytesSoFar: { counted.withLock { $0 } }) {
            let response = try await base.download(request, into: counting)
            let bytes = counted.withLock { $0 } + response.body.count
            return (response, bytes, bytes)
        }
    }

    /// `exchange` between a `request_start` and a `request_end` line: its status and sizes, or (thrown) its error
    /// with the bytes that came before it.
    func traced(
        _ request: TransportRequest, bytesSoFar: () -> Int,
        _ exchange: () async throws -> (response: TransportResponse, bytes: Int, wire: Int)
    ) async throws -> TransportResponse {
        let id = log.makeID()
        let started = TraceLog.now()
        log.record("request_start", ["id": id, "url": request.url], at: started)
        do {
            let (response, bytes, wire) = try await exchange()
            let ended = TraceLog.now()
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": response.status, "bytes": bytes, "wire": wire,
                    "ms": (ended - started) * 1000,
                ], at: ended)
            return response
        } catch {
            let ended = TraceLog.now()
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": 0, "bytes": bytesSoFar(), "wire": 0,
                    "ms": (ended - started) * 1000,
                    "error": error is CancellationError ? "cancelled" : String(describing: error),
                ], at: ended)
            throw error
        }
    }

    /// The body's size as sent: the `Content-Length` of a gzip or deflate answer (the transport decoded it).
    static func wireBytes(_ response: TransportResponse) -> Int {
        guard response.headers["content-encoding"] != nil,
            let length = response.headers["content-length"].flatMap(Int.init)
        else { return response.body.count }
        return length
    }
}
