import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 server on 127.0.0.1:0 whose every answer is scripted: for shapes no well-behaved server
/// sends on purpose (a clean close instead of an answer, silence, a lying `Content-Length`).
///
/// Plain POSIX sockets, one thread per connection, keep-alive unless a reply closes; every read is bounded by
/// a 30 s socket timeout, and ``stop()`` shuts every open connection down.
public final class ScriptedHTTPServer: Sendable {
    /// What the server does with one request.
    public enum Reply: Sendable {
        /// Writes these bytes, then waits for the next request on the connection, or closes when `close`.
        case bytes([UInt8], close: Bool = false)
        /// Closes the connection cleanly (FIN) without writing a byte.
        case hangUp
        /// Says nothing until the client closes the connection (or 30 s pass).
        case stall
        /// Writes these bytes (a head and part of a body, say), then says nothing more, as ``stall``.
        case stallAfter([UInt8])
        /// Hands the connection's send to the closure (which returns false from it once the client has gone),
        /// then closes: for answers written over time or too large to hold (a trickle, an endless body).
        case stream(@Sendable (_ send: ([UInt8]) -> Bool) -> Void)
    }

    /// One request as the server saw it.
    public struct Exchange: Sendable {
        /// Connections are numbered from 0 in the order they were accepted.
        public var connection: Int
        /// Requests are numbered from 0 on each connection.
        public var indexOnConnection: Int
        /// The request line and headers, as received.
        public var head: String

        /// The request target: `/svc/Person?$top=50`.
        public var target: String {
            let line = head.prefix { $0 != "\r" && $0 != "\n" }.split(separator: " ")
            return line.count >= 2 ? String(line[1]) : ""
        }

        /// The value of header `name` (case-insensitive), if sent.
        public func header(_ name: String) -> String? {
            for line in head.components(separatedBy: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
            return nil
        }
    }

    public typealias Script = @Sendable (Exchange) -> Reply

    public let port: Int
    private let listener: Int32
    private let script: Script
    private let state = Mutex(State())

    private struct State {
        var exchanges: [Exchange] = []
        var connections = 0
        var open: Set<Int32> = []
        var stallsEndedByClient = 0
        var stopped = false
    }

    public init(script: @escaping Script) throws {
        self.script = script
        (listener, port) = try LoopbackListener.open()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>` followed by `path`.
    public func url(_ path: String = "/svc/Person") -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Every request received so far, in order.
    public var exchanges: [Exchange] { state.withLock { $0.exchanges } }

    /// Connections accepted so far.
    public var connections: Int { state.withLock { $0.connections } }

    /// Stalled requests whose client gave up and closed the connection.
    public var stallsEndedByClient: Int { state.withLock { $0.stallsEndedByClient } }

    /// Stops accepting and shuts every open connection down.
    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            for socket in state.open { shutdown(socket, Int32(SHUT_RDWR)) }
            return state.stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// A whole HTTP/1.1 answer with `Content-Length` (unless given in `headers`) and keep-alive unless `close`.
    public static func response(
        status: String = "200 OK", headers: [String] = ["Content-Type: application/json"], body: [UInt8],
        close: Bool = false
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\n"
        for line in headers { head += line + "\r\n" }
        if !headers.contains(where: { $0.lowercased().hasPrefix("content-length:") }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += close ? "Connection: close\r\n\r\n" : "Connection: keep-alive\r\n\r\n"
        return Array(head.utf8) + body
    }

    // MARK: - Connections

    private func acceptLoop() {
        while let client = LoopbackListener.accept(listener) {
            let number: Int? = state.withLock { state in
                guard !state.stopped else { return nil }
                state.open.insert(client)
                defer { state.connections += 1 }
                return state.connections
            }
            guard let number else {
                close(client)
                return
            }
            Thread.detachNewThread { [self] in
                serve(client, number: number)
                state.withLock { _ = $0.open.remove(client) }
                close(client)
            }
        }
    }

    private func serve(_ client: Int32, number: Int) {
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var pending: [UInt8] = []
        for index in 0... {
            guard let head = Self.readHead(client, pending: &pending) else { return }
            let exchange = Exchange(connection: number, indexOnConnection: index, head: head)
            state.withLock { $0.exchanges.append(exchange) }
            let reply = script(exchange)
            switch reply {
            case .bytes(let bytes, let close):
                guard LoopbackListener.send(client, bytes), !close else { return }
            case .hangUp:
                return
            case .stream(let write):
                write { LoopbackListener.send(client, $0) }
                return
            case .stall, .stallAfter:
                if case .stallAfter(let bytes) = reply, !LoopbackListener.send(client, bytes) { return }
                var byte: UInt8 = 0
                var received = 0
                repeat { received = recv(client, &byte, 1, 0) } while received > 0
                if received == 0 || errno == ECONNRESET { state.withLock { $0.stallsEndedByClient += 1 } }
                return
            }
        }
    }

    /// Reads up to the blank line that ends a request head; bytes after it stay in `pending`.
    private static func readHead(_ socket: Int32, pending: inout [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while pending.count < 65_536 {
            if let end = endOfHead(pending) {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 4)
                return head
            }
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            pending.append(contentsOf: buffer[0..<count])
        }
        return nil
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for start in 0...(bytes.count - 4)
        where bytes[start] == 13 && bytes[start + 1] == 10 && bytes[start + 2] == 13 && bytes[start + 3] == 10 {
            return start
        }
        return nil
    }
}
