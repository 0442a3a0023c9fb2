// ssh-bench: keypress → frame with many SSH sessions at once, measured by a client that costs little.
//
// The Python suite's client is paramiko: 50 sessions are 150 Python threads (transport, reader and presser
// each) taking turns on one interpreter lock, and every packet is decrypted in Python before it is stamped.
// Its figures carry that queue. This client is swift-nio-ssh on one event-loop thread: every session's
// channel data is stamped on arrival, as the event loop reads it.
//
// Usage: ssh-bench PORT [SESSIONS] [SECONDS] [aligned|spread]   (or: ssh-bench replay FILE, below)
//   Connects SESSIONS sessions (password auth, user "bench", any password: the gateway under test runs
//   `--auth none`), asks each for an 80×24 xterm-256color pty and the browser, waits until every one has been
//   quiet for a second with its list on screen, then each presses `j` and `k` in turn every 100 ms for SECONDS.
//   aligned: every session presses at the same moment (the worst case: 50 keys at once).
//   spread: each session starts at its own moment within the first 100 ms (independent visitors).
// SSH_BENCH_QUIET_MS changes the quiet time (1,000 ms) every session must have before the presses start.
// A press is answered by the frame that shows it: each session's bytes go through a model of the terminal
// (Screen.swift), and `j` is answered when the list's status line shows the next position ("2 of 200"), `k` the
// one before. A frame from elsewhere (data arriving, a spinner) answers nothing; a frame answers the newest
// press whose position it shows, and every press before it. A press never shown counts as slower than any shown
// (so the p99 is over every press). The old measure, the first data after a press, is printed beside it. Prints
// one `json:` line, every press's latency in it (null: never shown), so that runs can be pooled.
// SSH_BENCH_SCREEN=1 prints the screen of the session with the most presses over 100 ms as the model saw it at
// the end, and its presses; SSH_BENCH_BYTES=FILE writes that session's presses and every chunk it received,
// stamped, to FILE.
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

    struct Press {
        var sent: UInt64
        /// The list position the press's frame shows (nil: the screen showed none when it was pressed).
        var expected: Int?
        /// Milliseconds to the frame that shows it; nil while not shown.
        var latency: Double?
        /// Milliseconds to the first data after it (the old measure, kept to compare).
        var firstData: Double?
    }

    var lastData: UInt64 = 0
    var bytes = 0
    var screen = Screen(columns: 80, rows: 24)
    var presses: [Press] = []
    /// Every chunk received, stamped (SSH_BENCH_BYTES: written for the slowest session).
    var received: [(UInt64, [UInt8])] = []
    let keepsBytes = ProcessInfo.processInfo.environment["SSH_BENCH_BYTES"] != nil
    /// Presses before this index are answered.
    private var firstOpen = 0
    /// Presses before this index have had data after them.
    private var firstWithoutData = 0
    /// Where the cursor will be once every press sent is shown.
    private var intended: Int?
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
        receive(Array(buffer.readableBytesView), at: stamp)
    }

    /// Feeds a chunk to the terminal model and credits the presses it answers.
    func receive(_ chunk: [UInt8], at stamp: UInt64) {
        bytes += chunk.count
        lastData = stamp
        screen.feed(chunk)
        if keepsBytes { received.append((stamp, chunk)) }
        while firstWithoutData < presses.count {
            presses[firstWithoutData].firstData = Double(stamp - presses[firstWithoutData].sent) / 1_000_000
            firstWithoutData += 1
        }
        // The newest open press whose position is shown is answered by this frame, and so is every press
        // before it: keys are handled in order, and a batch of them handled together shows only where the batch
        // ends. (`k` then `j` read together draw nothing at all: the cursor is back where it was. Crediting the
        // oldest open press instead left every later press of that session one frame behind, two presses late, to
        // the end of the run.) Where a browser is behind and draws an old press's frame that shows the same
        // position as a newer press, the newer one is credited early; only a session already behind does that.
        guard let shown = screen.listPosition,
            let answered = presses[firstOpen...].lastIndex(where: { $0.expected == shown })
        else { return }
        for index in firstOpen...answered {
            presses[index].latency = Double(stamp - presses[index].sent) / 1_000_000
        }
        firstOpen = answered + 1
    }

    /// Each press's expected position and latency ("2:0.6 1:never …").
    var pressReport: String {
        let presses = presses.map { press in
            "\(press.expected.map(String.init) ?? "-"):\(press.latency.map { String(format: "%.1f", $0) } ?? "never")"
        }
        return "presses (position:ms): " + presses.joined(separator: " ")
    }

    /// Presses `j` (down) or `k` (up) on the list.
    func press(_ key: String) {
        guard let context else { return }
        if intended == nil { intended = screen.listPosition }
        intended = intended.map { key == "j" ? $0 + 1 : $0 - 1 }
        presses.append(Press(sent: now(), expected: intended))
        let buffer = context.channel.allocator.buffer(string: key)
        context.writeAndFlush(wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(buffer))), promise: nil)
    }

    func send(_ text: String) {
        guard let context else { return }
        let buffer = context.channel.allocator.buffer(string: text)
        context.writeAndFlush(wrapOutboundOut(SSHChannelData(type: .channel, data: .byteBuffer(buffer))), promise: nil)
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
                // A last frame may come late: it is waited for as long as the presses took.
                loop.scheduleTask(in: .milliseconds(Int64(presses) * 100)) { done() }
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

/// `ssh-bench replay FILE`: a session written by SSH_BENCH_BYTES, read again by the model (to check how its
/// frames were credited): prints each press's position and latency.
func replay(_ path: String) throws {
    let session = Session()
    var events: [(stamp: UInt64, press: Int?, chunk: [UInt8])] = []
    for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
        let fields = line.split(separator: " ")
        guard fields.count >= 2, let stamp = UInt64(fields[1]) else { continue }
        if fields[0] == "P", fields.count == 3, let expected = Int(fields[2]) {
            events.append((stamp, expected, []))
        } else if fields[0] == "D" {
            let hex = fields.count == 3 ? Array(fields[2].utf8) : []
            let chunk = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
                UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
            }
            events.append((stamp, nil, chunk))
        }
    }
    for event in events.sorted(by: { $0.stamp < $1.stamp }) {
        if let expected = event.press {
            session.presses.append(Session.Press(sent: event.stamp, expected: expected < 0 ? nil : expected))
        } else {
            session.receive(event.chunk, at: event.stamp)
        }
    }
    print(session.pressReport)
}

func run() async throws {
    let arguments = CommandLine.arguments
    if arguments.count == 3, arguments[1] == "replay" {
        try replay(arguments[2])
        return
    }
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

    // Every session's list on screen (its position shown) and a second of quiet after it (SSH_BENCH_QUIET_MS to
    // change): a key pressed while a session still starts would not be a keypress on the list.
    let quietNanoseconds =
        UInt64(ProcessInfo.processInfo.environment["SSH_BENCH_QUIET_MS"].flatMap(Int.init) ?? 1000) * 1_000_000
    let settleLimit = now() + 120_000_000_000
    while now() < settleLimit {
        try await Task.sleep(nanoseconds: 100_000_000)
        let quiet = try await loop.submit {
            sessions.allSatisfy {
                $0.lastData > 0 && now() - $0.lastData > quietNanoseconds && $0.screen.listPosition != nil
            }
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

    let pressed: [Session.Press] = try await loop.submit { sessions.flatMap { $0.presses } }.get()
    let all = pressed.map(\.latency)
    let answered = all.compactMap { $0 }
    let everything = all.map { $0 ?? .infinity }
    let p99 = percentile(everything, 0.99)
    let p50 = percentile(everything, 0.5)
    let p99Answered = answered.isEmpty ? "null" : figure(percentile(answered, 0.99))
    let slow = all.filter { ($0 ?? .infinity) > 100 }.count
    let firstData = percentile(pressed.map { $0.firstData ?? .infinity }, 0.99)
    let phase = spread ? "spread" : "aligned"
    print(
        "\(count) sessions, \(phase): \(all.count) presses, p50 \(figure(p50)) ms, p99 \(figure(p99)) ms"
            + " (answered: \(p99Answered) ms), \(all.count - answered.count) never shown, \(slow) over 100 ms;"
            + " crediting the first data after a press instead: p99 \(figure(firstData)) ms")
    print(
        "json: {\"sessions\": \(count), \"phase\": \"\(phase)\", \"presses\": \(all.count), "
            + "\"p50_ms\": \(figure(p50)), \"p99_ms\": \(figure(p99)), \"p99_answered_ms\": \(p99Answered), "
            + "\"never_shown\": \(all.count - answered.count), \"over_100ms\": \(slow), "
            + "\"p99_first_data_ms\": \(figure(firstData)), "
            + "\"latencies_ms\": [\(all.map { $0.map { String(format: "%.3f", $0) } ?? "null" }.joined(separator: ","))]}"
    )
    if ProcessInfo.processInfo.environment["SSH_BENCH_SCREEN"] != nil {
        // The session with the most presses slow or never shown (the first if none).
        let report: String = try await loop.submit {
            let slowest = sessions.max { a, b in
                a.presses.filter { ($0.latency ?? .infinity) > 100 }.count
                    < b.presses.filter { ($0.latency ?? .infinity) > 100 }.count
            }
            guard let session = slowest else { return "" }
            if let path = ProcessInfo.processInfo.environment["SSH_BENCH_BYTES"] {
                var log = session.presses.map { "P \($0.sent) \($0.expected ?? -1)" }
                log += session.received.map { stamp, bytes in
                    "D \(stamp) " + bytes.map { String(format: "%02x", $0) }.joined()
                }
                FileManager.default.createFile(atPath: path, contents: Data(log.joined(separator: "\n").utf8))
            }
            return session.screen.lines.joined(separator: "\n") + "\n" + session.pressReport + "\n"
        }.get()
        FileHandle.standardError.write(Data(report.utf8))
    }
    try await loop.submit {
        for session in sessions {
            session.send("q")
            session.close()
        }
    }.get()
    try? await Task.sleep(nanoseconds: 300_000_000)
    try? await group.shutdownGracefully()
}

/// Milliseconds with two decimals; null for "not answered" (infinite).
func figure(_ value: Double) -> String { value.isFinite ? String(format: "%.2f", value) : "null" }

try await run()
