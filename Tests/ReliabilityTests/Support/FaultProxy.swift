import CarDealerTestSupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One way an HTTP exchange can go wrong on a bad network or behind a broken gateway.
enum Fault: String, CaseIterable, Sendable {
    /// The connection is reset (TCP RST) after the request, with no answer at all.
    case drop
    /// The connection is closed cleanly (FIN) after the request, with no answer at all, always on a connection
    /// kept alive from an earlier exchange, as a server closing idle connections does: drawn for a fresh
    /// connection's request, it lets that one through and hangs up on the next request of a kept-alive one.
    ///
    /// The shape swift-corelibs-foundation's URLSession aborted the process on ("Transfer completed, but
    /// there's no response", swiftlang/swift-corelibs-foundation#5285, not fixed in 6.3.1), and why the
    /// transport is AsyncHTTPClient now.
    case hangUp
    /// A 500 with an OData error body.
    case serverError
    /// A 503 with a plain-text body, as a gateway sends it.
    case unavailable
    /// No answer until the client gives up (its request timeout).
    case stall
    /// A 200 whose JSON body is cut in half (with a matching `Content-Length`).
    case truncated
    /// A 200 whose body is not JSON at all.
    case malformed
    /// A 200 with `Content-Type: text/html` and a login page, as a captive portal sends it.
    case wrongContentType
    /// The real answer, a few hundred bytes at a time with pauses.
    case trickle
    /// The real headers, then the connection closes half way through the body (bodies of 2 bytes or more).
    case cutMidBody
    /// The request reaches the upstream server, which carries it out and answers; the answer is lost (the
    /// connection is reset): a write made without its acknowledgement ever arriving. Drawn only when asked for.
    case loseAnswer

    /// The faults a proxy draws among unless told otherwise.
    static let reads = allCases.filter { $0 != .loseAnswer }
}

/// A tiny HTTP/1.1 proxy on 127.0.0.1 that forwards requests (with their bodies) to an upstream server and
/// injects faults.
///
/// Clean answers keep the client's connection alive for its next request (a fault closes it); upstream gets
/// one request per connection (`Connection: close`). Blocking sockets on one thread per connection, every
/// read bounded by a socket timeout (an idle client connection is closed after 10 s). Which fault (if any)
/// an exchange gets is drawn from a seeded generator so that runs repeat; ``setFaultRate(_:)`` 0 makes it
/// a plain proxy.
final class FaultProxy: Sendable {
    /// The port the proxy listens on.
    let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    /// Mutable state shared by connection threads.
    private let state: Mutex<State>

    private struct State {
        var faultRate = 0.0
        var faults = Fault.reads
        var random: UInt64
        var injected: [Fault: Int] = [:]
        /// Hang-ups drawn on fresh connections, waiting for a request on a kept-alive one.
        var pendingHangUps = 0
        var forwarded = 0
        var closed = false
    }

    /// Starts listening on an ephemeral port of 127.0.0.1, forwarding to `127.0.0.1:upstreamPort`.
    init(upstreamPort: Int, seed: UInt64 = 0x5EED) throws {
        self.upstreamPort = upstreamPort
        state = Mutex(State(random: seed | 1))
        (listener, port) = try LoopbackListener.open(backlog: 64)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Makes `rate` (0…1) of the exchanges faulty, drawing among `faults`.
    func setFaultRate(_ rate: Double, faults: [Fault] = Fault.reads) {
        state.withLock {
            $0.faultRate = rate
            $0.faults = faults
        }
    }

    /// How many times each fault was injected so far.
    var injected: [Fault: Int] { state.withLock { $0.injected } }

    /// Exchanges forwarded to the upstream server (faulty ones included).
    var forwarded: Int { state.withLock { $0.forwarded } }

    /// Stops accepting; exchanges in progress finish on their own (bounded by socket timeouts).
    func stop() {
        let wasClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !wasClosed else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    // MARK: - Connections

    private func acceptLoop() {
        while let client = LoopbackListener.accept(listener) {
            Thread.detachNewThread { [self] in
                serve(client)
                close(client)
            }
        }
    }

    /// The fault drawn for the next exchange, if any (``fault(forRequestAt:)`` decides and counts).
    private func nextFault() -> Fault? {
        state.withLock { state in
            state.random ^= state.random << 13
            state.random ^= state.random >> 7
            state.random ^= state.random << 17
            let roll = Double(state.random % 1_000_000) / 1_000_000
            guard roll < state.faultRate, !state.faults.isEmpty else { return nil }
            return state.faults[Int(state.random >> 32) % state.faults.count]
        }
    }

    /// The fault for a request that is the `index`th on its connection: a ``Fault/hangUp`` waits for a
    /// kept-alive connection (while any wait, the next request on one gets it); counted when injected.
    private func fault(forRequestAt index: Int) -> Fault? {
        let drawn = nextFault()
        return state.withLock { state in
            var fault = drawn
            if index > 0, state.pendingHangUps > 0, fault != .hangUp {
                state.pendingHangUps -= 1
                fault = .hangUp
            } else if index == 0, fault == .hangUp {
                state.pendingHangUps += 1
                fault = nil
            }
            if let fault { state.injected[fault, default: 0] += 1 }
            return fault
        }
    }

    /// Serves requests on one client connection until an answer or a fault closes it (clients do not pipeline,
    /// so nothing follows a request's head and its `Content-Length` body but the next request).
    private func serve(_ client: Int32) {
        Self.setTimeout(client, seconds: 10)
        for index in 0... {
            guard let request = Self.readHead(client), let head = String(bytes: request.head, encoding: .utf8),
                let body = Self.readBody(client, head: head, already: request.rest),
                exchange(head, body: body, fault: fault(forRequestAt: index), on: client)
            else { return }
        }
    }

    /// The request's body: `Content-Length` bytes, some of which came with its head.
    private static func readBody(_ client: Int32, head: String, already: [UInt8]) -> [UInt8]? {
        let length =
            head.components(separatedBy: "\r\n").lazy.compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        var body = already
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while body.count < length {
            let count = recv(client, &buffer, min(buffer.count, length - body.count), 0)
            if count <= 0 { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        return body
    }

    /// Answers one request with `fault`, if any; true when the connection stays open for the next.
    private func exchange(_ head: String, body: [UInt8], fault: Fault?, on client: Int32) -> Bool {
        switch fault {
        case .hangUp?:
            return false
        case .drop?:
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            return false
        case .stall?:
            // Wait (bounded by the socket timeout) until the client gives up and closes.
            var byte: UInt8 = 0
            while recv(client, &byte, 1, 0) > 0 {}
            return false
        case .serverError?:
            let body = #"{"error":{"code":"Boom","message":{"lang":"en","value":"Injected internal error."}}}"#
            LoopbackListener.send(
                client,
                Self.response(status: "500 Internal Server Error", type: "application/json", body: Array(body.utf8)))
            return false
        case .unavailable?:
            LoopbackListener.send(
                client,
                Self.response(
                    status: "503 Service Unavailable", type: "text/plain", body: Array("upstream is down\n".utf8)))
            return false
        case .wrongContentType?:
            let body = "<html><head><title>Sign in</title></head><body>Wi-Fi login</body></html>"
            LoopbackListener.send(
                client, Self.response(status: "200 OK", type: "text/html; charset=utf-8", body: Array(body.utf8)))
            return false
        case .malformed?:
            LoopbackListener.send(
                client,
                Self.response(
                    status: "200 OK", type: "application/json", body: Array("{\"d\": {\"results\": [}, ]]]".utf8)))
            return false
        default:
            break
        }
        // A body fault needs a body: ask without `If-None-Match`, so a 304 cannot dodge it.
        let needsBody = fault == .truncated || fault == .cutMidBody || fault == .trickle
        guard let upstream = forward(head, body: body, withoutValidators: needsBody) else { return false }
        state.withLock { $0.forwarded += 1 }
        switch fault {
        case .loseAnswer?:
            var reset = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            return false
        case .truncated?:
            let cut = Array(upstream.body.prefix(max(1, upstream.body.count / 2)))
            LoopbackListener.send(client, Self.response(status: upstream.status, type: upstream.contentType, body: cut))
            return false
        case .cutMidBody? where upstream.body.count >= 2:
            // Only ever inside the body: a close with no answer at all is `hangUp`.
            let full = Self.response(status: upstream.status, type: upstream.contentType, body: upstream.body)
            LoopbackListener.send(client, Array(full.prefix(full.count - max(1, upstream.body.count / 2))))
            return false
        case .trickle?:
            let full = Self.response(
                status: upstream.status, type: upstream.contentType, body: upstream.body, keepAlive: true)
            var offset = 0
            while offset < full.count {
                let end = min(full.count, offset + 512)
                guard LoopbackListener.send(client, Array(full[offset..<end])) else { return false }
                offset = end
                usleep(500)
            }
            return true
        default:
            return LoopbackListener.send(
                client,
                Self.response(
                    status: upstream.status, type: upstream.contentType, body: upstream.body,
                    extra: upstream.extraHeaders,
                    keepAlive: true
                ))
        }
    }

    /// What the upstream server answered.
    private struct Upstream {
        var status: String
        var contentType: String?
        var extraHeaders: [String]
        var body: [UInt8]
    }

    /// Sends the request (head and body) upstream with `Connection: close` and reads the whole answer.
    private func forward(_ head: String, body requestBody: [UInt8], withoutValidators: Bool) -> Upstream? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        Self.setTimeout(socket, seconds: 10)
        var address = LoopbackListener.address(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let lines = head.components(separatedBy: "\r\n").filter { line in
            let lower = line.lowercased()
            return !line.isEmpty && !lower.hasPrefix("connection:")
                && !(withoutValidators && lower.hasPrefix("if-none-match:"))
        }
        guard
            LoopbackListener.send(
                socket,
                Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8) + requestBody)
        else { return nil }
        guard let answer = Self.readHead(socket), let text = String(bytes: answer.head, encoding: .utf8) else {
            return nil
        }
        var headerLines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !headerLines.isEmpty else { return nil }
        let statusLine = headerLines.removeFirst()
        let status =
            statusLine.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? "502 Bad Gateway"
        var contentType: String?
        var length: Int?
        var extra: [String] = []
        for line in headerLines {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased()
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch name {
            case "content-type": contentType = value
            case "content-length": length = Int(value)
            case "connection", "transfer-encoding": break
            default: extra.append(line)
            }
        }
        var body = answer.rest
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while length.map({ body.count < $0 }) ?? true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            body.append(contentsOf: buffer[0..<count])
        }
        if let length, body.count < length { return nil }
        return Upstream(status: status, contentType: contentType, extraHeaders: extra, body: body)
    }

    // MARK: - Socket helpers

    private static func setTimeout(_ socket: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads up to the blank line that ends an HTTP head (at most 64 KB); returns the head and any bytes after it.
    private static func readHead(_ socket: Int32) -> (head: [UInt8], rest: [UInt8])? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while data.count < 65_536 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            data.append(contentsOf: buffer[0..<count])
            if let end = firstRange(of: terminator, in: data) {
                return (Array(data[..<end]), Array(data[(end + 4)...]))
            }
        }
        return nil
    }

    private static func firstRange(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if Array(haystack[start..<(start + needle.count)]) == needle { return start }
        }
        return nil
    }

    /// An answer with `Content-Length`; `Connection: close` unless `keepAlive`.
    private static func response(
        status: String, type: String?, body: [UInt8], extra: [String] = [], keepAlive: Bool = false
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status)\r\n"
        if let type { head += "Content-Type: \(type)\r\n" }
        for line in extra { head += line + "\r\n" }
        head += "Content-Length: \(body.count)\r\n" + (keepAlive ? "\r\n" : "Connection: close\r\n\r\n")
        return Array(head.utf8) + body
    }
}
