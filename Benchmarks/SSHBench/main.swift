// ssh-bench: keypress → frame with many SSH sessions at once, measured by a client that costs little.
//
// The Python suite's client is paramiko: 50 sessions are 150 Python threads (transport, reader and presser
// each) taking turns on one interpreter lock, and every packet is decrypted in Python before it is stamped.
// Its figures carry that queue. This client is swift-nio-ssh on one event-loop thread: every session's
// channel data is stamped on arrival, as the event loop reads it.
//
// Usage: ssh-bench PORT [SESSIONS] [SECONDS] [aligned|spread]
//   Connects SESSIONS sessions (password auth, user "bench", any password: the gateway under test runs
//   `--auth none`), asks each for an 80×24 xterm-256color pty and the browser, waits until every one has been
//   quiet for a second, then each presses `j` and `k` in turn every 100 ms for SECONDS.
//   aligned: every session presses at the same moment (the worst case: 50 keys at once).
//   spread: each session starts at its own moment within the first 100 ms (independent visitors).
// SSH_BENCH_QUIET_MS changes the quiet time (1,000 ms) every session must have before the presses start.
// A press is answered by the first channel data after it; one not answered before the next press counts as
// slower than any answered (so the p99 is over every press). Prints one `json:` line, every press's latency in it
// (null: not answered), so that runs can be pooled.
import Dispatch
import Foundation
import NIOCore
import NIOPosix
import NIOSSH

final class AcceptAnyHostKey: NIOSSHClientServerAuthenticationDelegate {
    func validateHostKey(hostKey: NIOSSHPublicKey, validationCompletePromise: EventLoopPromise<Void>) {
        validationCompletePromise.succeed(())
    }
}

final class BenchPassword: NIOSSHClientUserAuthenticationDelegate {
    private var offered = false

    func nextAuthenticationType(
        availableMethods: NIOSSHAvailableUserAuthenticationMethods,
        nextChallengePromise: EventLoopPromise<NIOSSHUserAuthenticationOffer?>
    ) {
        guard !offered, availableMethods.contains(.password) else {
            nextChallengePromise.succeed(nil)
            return
        }
        offered = true
        nextChallengePromise.succeed(
            NIOSSHUserAuthenticationOffer(username: "bench", serviceName: "", offer: .password(.init(password: "-"))))
    }
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// One session's channel: asks for the pty and the browser, stamps what arrives, presses keys when told.
/// Everything runs on the connection's event loop.
final class Session: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    var lastData: UInt64 = 0
    var bytes = 0
    /// Time of the press not yet answered, if any.
    var pending: UInt64?
    /// Milliseconds per press; nil for one not answered before the next.
    var latencies: [Double?] = []
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let pty = SSHChannelRequestEvent.PseudoTerminalRequest(
            wantReply: false, term: "xterm-256color", terminalCharacterWidth: 80, terminalRowHeight: 24,
            terminalPixelWidth: 0, terminalPixelHeight: 0, terminalModes: SSHTerminalModes([:]))
        context.triggerUserOutboundEvent(pty, promise: nil)
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ShellRequest(wantReply: false), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let stamp = now()
        let message = unwrapInboundIn(data)
        guard case .byteBuffer(let buffer) = message.data else { return }
        bytes += buffer.readableBytes
        lastData = stamp
        if let sent = pending {
            latencies.append(Double(stamp - sent) / 1_000_000)
            pending = nil
        }
    }

    func press(_ key: String) {
        guard let context else { return }
        if pending != nil { latencies.append(nil) }
        pending = now()
        let buffer = context.channel.allocator.buffer(string: key)
        context.writeAndFlush(wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(buffer))), promise: nil)
    }

    func finish() {
        if pending != nil { latencies.append(nil) }
        pending = nil
    }

    func close() { context?.close(promise: nil) }
}

func connect(port: Int, group: EventLoopGroup) async throws -> (Channel, Session) {
    let connection = try await ClientBootstrap(group: group)
        .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let configuration = SSHClientConfiguration(
                    userAuthDelegate: BenchPassword(), serverAuthDelegate: AcceptAnyHostKey())
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSHHandler(
                        role: .client(configuration), allocator: channel.allocator, inboundChildChannelInitializer: nil)
                )
            }
        }
        .connect(host: "127.0.0.1", port: port).get()
    let session = Session()
    let opened: EventLoopFuture<Channel> = connection.eventLoop.flatSubmit {
        let promise = connection.eventLoop.makePromise(of: Channel.self)
        do {
            let ssh = try connection.pipeline.syncOperations.handler(type: NIOSSHHandler.self)
            ssh.createChannel(promise, channelType: .session) { child, _ in
                child.eventLoop.makeCompletedFuture { try child.pipeline.syncOperations.addHandler(session) }
            }
        } catch {
            promise.fail(error)
        }
        return promise.futureResult
    }
    _ = try await opened.get()
    return (connection, session)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// Presses `j` and `k` in turn on one session, every 100 ms from `first`; on its event loop.
final class Presser: @unchecked Sendable {
    let session: Session
    let loop: EventLoop
    let first: NIODeadline
    let presses: Int
    var pressed = 0

    init(session: Session, loop: EventLoop, first: NIODeadline, presses: Int) {
        self.session = session
        self.loop = loop
        self.first = first
        self.presses = presses
    }

    /// Each press is scheduled from the first one's moment, so a late tick does not shift the ones after it.
    func run(done: @escaping @Sendable () -> Void) {
        loop.scheduleTask(deadline: first + .milliseconds(Int64(pressed) * 100)) { [self] in
            session.press(pressed % 2 == 0 ? "j" : "k")
            pressed += 1
            if pressed < presses {
                run(done: done)
            } else {
                loop.scheduleTask(in: .milliseconds(100)) { [self] in
                    session.finish()
                    done()
                }
            }
        }
    }
}

final class Countdown: @unchecked Sendable {
    var remaining: Int
    let promise: EventLoopPromise<Void>
    init(_ remaining: Int, promise: EventLoopPromise<Void>) {
        self.remaining = remaining
        self.promise = promise
    }
    func tick() {
        remaining -= 1
        if remaining == 0 { promise.succeed(()) }
    }
}

func run() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count >= 2, let port = Int(arguments[1]) else {
        FileHandle.standardError.write(Data("usage: ssh-bench PORT [SESSIONS] [SECONDS] [aligned|spread]\n".utf8))
        exit(2)
    }
    let count = arguments.count > 2 ? Int(arguments[2]) ?? 50 : 50
    let seconds = arguments.count > 3 ? Int(arguments[3]) ?? 10 : 10
    let spread = arguments.count > 4 ? arguments[4] == "spread" : false

    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let loop = group.next()
    var opened: [(Channel, Session)] = []
    for _ in 0..<count { opened.append(try await connect(port: port, group: group)) }
    let sessions = opened.map { $0.1 }

    // Every session's first frame drawn and a second of quiet after it (SSH_BENCH_QUIET_MS to change).
    let quietNanoseconds =
        UInt64(ProcessInfo.processInfo.environment["SSH_BENCH_QUIET_MS"].flatMap(Int.init) ?? 1000) * 1_000_000
    let settleLimit = now() + 120_000_000_000
    while now() < settleLimit {
        try await Task.sleep(nanoseconds: 100_000_000)
        let quiet = try await loop.submit {
            sessions.allSatisfy { $0.lastData > 0 && now() - $0.lastData > quietNanoseconds }
        }.get()
        if quiet { break }
    }

    let finished = loop.makePromise(of: Void.self)
    let countdown = Countdown(sessions.count, promise: finished)
    try await loop.submit {
        let base = NIODeadline.now() + .milliseconds(10)
        // For a profiler run beside this one: the moment the presses start, on CLOCK_MONOTONIC.
        FileHandle.standardError.write(Data("presses start at \(base.uptimeNanoseconds) ns (monotonic)\n".utf8))
        for (index, session) in sessions.enumerated() {
            let offset: Int64 = spread ? Int64(index) * 100_000_000 / Int64(sessions.count) : 0
            Presser(session: session, loop: loop, first: base + .nanoseconds(offset), presses: seconds * 10)
                .run { countdown.tick() }
        }
    }.get()
    try await finished.futureResult.get()

    let all: [Double?] = try await loop.submit { sessions.flatMap { $0.latencies } }.get()
    let answered = all.compactMap { $0 }
    let everything = all.map { $0 ?? .infinity }
    let p99 = percentile(everything, 0.99)
    let p50 = percentile(everything, 0.5)
    let p99Answered = answered.isEmpty ? "null" : figure(percentile(answered, 0.99))
    let phase = spread ? "spread" : "aligned"
    print(
        "\(count) sessions, \(phase): \(all.count) presses, p50 \(figure(p50)) ms, p99 \(figure(p99)) ms"
            + " (answered: \(p99Answered) ms), \(all.count - answered.count) not answered before the next press")
    print(
        "json: {\"sessions\": \(count), \"phase\": \"\(phase)\", \"presses\": \(all.count), "
            + "\"p50_ms\": \(figure(p50)), \"p99_ms\": \(figure(p99)), \"p99_answered_ms\": \(p99Answered), "
            + "\"unanswered_within_100ms\": \(all.count - answered.count), "
            + "\"latencies_ms\": [\(all.map { $0.map { String(format: "%.3f", $0) } ?? "null" }.joined(separator: ","))]}"
    )
    try await loop.submit {
        for session in sessions {
            session.press("q")
            session.close()
        }
    }.get()
    try? await Task.sleep(nanoseconds: 300_000_000)
    try? await group.shutdownGracefully()
}

/// Milliseconds with two decimals; null for "not answered" (infinite).
func figure(_ value: Double) -> String { value.isFinite ? String(format: "%.2f", value) : "null" }

try await run()
