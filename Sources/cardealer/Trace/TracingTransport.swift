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
        let id = log.makeID()
        let started = TraceLog.now()
        log.record("request_start", ["id": id, "url": request.url], at: started)
        do {
            let response = try await base.send(request)
            let ended = TraceLog.now()
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": response.status, "bytes": response.body.count,
                    "wire": Self.wireBytes(response), "ms": (ended - started) * 1000,
                ], at: ended)
            return response
        } catch {
            let ended = TraceLog.now()
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": 0, "bytes": 0, "wire": 0, "ms": (ended - started) * 1000,
                    "error": error is CancellationError ? "cancelled" : String(describing: error),
                ], at: ended)
            throw error
        }
    }

    /// A stream saved to a file, traced as a request whose `bytes` are those written; streamed by `base`.
    func download(_ request: TransportRequest, into sink: DownloadSink) async throws -> TransportResponse {
        let id = log.makeID()
        let started = TraceLog.now()
        log.record("request_start", ["id": id, "url": request.url], at: started)
        let counted = Mutex(0)
        let counting = DownloadSink(
            started: sink.started,
            received: { bytes in
                counted.withLock { $0 += bytes.count }
                try sink.received(bytes)
            })
        do {
            let response = try await base.download(request, into: counting)
            let ended = TraceLog.now()
            let bytes = counted.withLock { $0 } + response.body.count
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": response.status, "bytes": bytes, "wire": bytes,
                    "ms": (ended - started) * 1000,
                ], at: ended)
            return response
        } catch {
            let ended = TraceLog.now()
            log.record(
                "request_end",
                [
                    "id": id, "url": request.url, "status": 0, "bytes": counted.withLock { $0 }, "wire": 0,
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
