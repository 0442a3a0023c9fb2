import NIOCore
import NIOSSH

/// What one SSH connection is: its address, the client's version line and, once authenticated, its user.
///
/// `@unchecked Sendable`: written and read only on its connection's event loop, where every handler that holds it
/// runs (the version sniffer, the authentication delegate, each session channel's handler).
final class ConnectionInfo: @unchecked Sendable {
    let address: String
    var clientVersion = "?"
    var user = "?"
    var authenticated = false

    init(address: String) { self.address = address }
}

/// Shared by every connection of one gateway.
struct GatewayContext: Sendable {
    let configuration: GatewayConfiguration
    let limits: GatewayLimits
    let log: GatewayLog
    let port: Int
}

/// One SSH session channel: takes the pty request, runs the browser on a pty for the shell request, and refuses
/// every other way of running something.
final class SessionChannelHandler: ChannelDuplexHandler {
    typealias InboundIn = SSHChannelData
    typealias OutboundIn = SSHChannelData
    typealias OutboundOut = SSHChannelData

    private let gateway: GatewayContext
    private let connection: ConnectionInfo
    private var context: ChannelHandlerContext?
    private var terminal: (term: String, columns: Int, rows: Int)?
    private var environment: [String: String] = [:]
    private var process: PtyProcess?
    private var number: Int?
    private var started = ContinuousClock.now
    private var lastInput = ContinuousClock.now
    private var bytesIn = 0
    private var bytesOut = 0
    private var frames = 0
    private var endReason: String?
    private var timer: RepeatedTask?
    private var droppedInput = false

    init(gateway: GatewayContext, connection: ConnectionInfo) {
        self.gateway = gateway
        self.connection = connection
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        _ = context.channel.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = unwrapInboundIn(data)
        guard case .channel = message.type, case .byteBuffer(let buffer) = message.data else { return }
        bytesIn += buffer.readableBytes
        lastInput = .now
        guard let process else { return }
        if !process.send(Array(buffer.readableBytesView)), !droppedInput {
            droppedInput = true
            gateway.log.write("session \(number ?? 0): input dropped, the browser is not reading it")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if process != nil { end("the client left") }
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let request as SSHChannelRequestEvent.PseudoTerminalRequest:
            let accepted = process == nil
            if accepted {
                // A client whose own output is not a terminal (ssh -tt < file) sends 0×0: assume 80×24.
                terminal = (
                    gatewayTerm(request.term),
                    request.terminalCharacterWidth > 0 ? request.terminalCharacterWidth : 80,
                    request.terminalRowHeight > 0 ? request.terminalRowHeight : 24
                )
            }
            reply(to: request.wantReply, accepted, context: context)
        case let request as SSHChannelRequestEvent.EnvironmentRequest:
            let name = request.name
            let accepted =
                (name == "LANG" || name.hasPrefix("LC_") || name == "NO_COLOR" || name == "COLORTERM")
                && name.count <= 32 && process == nil
            if accepted { environment[name.sanitisedForGateway(limit: 32)] = request.value.sanitisedForGateway() }
            reply(to: request.wantReply, accepted, context: context)
        case let request as SSHChannelRequestEvent.ShellRequest:
            reply(to: request.wantReply, true, context: context)
            startBrowser(context: context)
        case let request as SSHChannelRequestEvent.ExecRequest:
            reply(to: request.wantReply, true, context: context)
            gateway.log.write(
                "\(connection.user)@\(connection.address): refused to run a command "
                    + "(\(request.command.count) characters)")
            refuse(
                "This server runs only the CarDealer browser; it runs no commands. Connect with: "
                    + "ssh -p \(gateway.port) \(connection.user)@HOST", context: context)
        case let request as SSHChannelRequestEvent.SubsystemRequest:
            gateway.log.write(
                "\(connection.user)@\(connection.address): refused the subsystem "
                    + request.subsystem.sanitisedForGateway())
            writeError("This server runs only the CarDealer browser; it offers no subsystems.", context: context)
            reply(to: request.wantReply, false, context: context)
            context.close(promise: nil)
        case let request as SSHChannelRequestEvent.WindowChangeRequest:
            let columns = max(1, request.terminalCharacterWidth)
            let rows = max(1, request.terminalRowHeight)
            if let process {
                process.resize(columns: columns, rows: rows)
            } else if let current = terminal {
                terminal = (current.term, columns, rows)
            }
        case let event as ChannelEvent where event == .inputClosed:
            // The client will send no more input; the browser carries on until it quits or times out.
            break
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func reply(to wantReply: Bool, _ accepted: Bool, context: ChannelHandlerContext) {
        guard wantReply else { return }
        if accepted {
            context.triggerUserOutboundEvent(ChannelSuccessEvent(), promise: nil)
        } else {
            context.triggerUserOutboundEvent(ChannelFailureEvent(), promise: nil)
        }
    }

    private func startBrowser(context: ChannelHandlerContext) {
        guard process == nil else { return }
        guard let terminal else {
            refuse(
                "CarDealer needs a terminal: connect with ssh -t -p \(gateway.port) \(connection.user)@HOST",
                context: context)
            return
        }
        guard let number = gateway.limits.openSession() else {
            gateway.log.write(
                "\(connection.user)@\(connection.address): turned away, all \(gateway.limits.maxSessions) sessions "
                    + "are taken")
            refuse(
                "The demo is full: all \(gateway.limits.maxSessions) sessions are taken. Try again in a few minutes.",
                context: context)
            return
        }
        self.number = number
        let request = SessionRequest(
            number: number, user: connection.user, term: terminal.term, environment: environment)
        let spawned: PtyProcess
        let command: SessionCommand
        do {
            command = try gateway.configuration.command(request)
            spawned = try PtyProcess.spawn(
                command, columns: terminal.columns, rows: terminal.rows,
                memoryLimitBytes: gateway.configuration.memoryLimitBytes,
                frameQuiet: gateway.configuration.frameQuiet)
        } catch {
            gateway.limits.closeSession()
            gateway.log.write("session \(number): could not start the browser: \(error)")
            refuse("The browser could not start; the server's log says why.", context: context)
            return
        }
        process = spawned
        started = .now
        lastInput = .now
        gateway.log.write(
            "session \(number) started: user \(connection.user), address \(connection.address), client "
                + "\(connection.clientVersion), TERM \(terminal.term), \(terminal.columns)x\(terminal.rows), "
                + "pid \(spawned.pid)")
        let loop = context.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        spawned.run(
            output: { bytes, written in
                loop.execute { bound.value.deliver(bytes, written: written) }
            },
            ended: { status in
                // On the session's thread: removing its directory is file work, not the event loop's.
                command.cleanup()
                loop.execute { bound.value.browserEnded(status: status) }
            })
        let configuration = gateway.configuration
        timer = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            let handler = bound.value
            let now = ContinuousClock.now
            if now - handler.lastInput > configuration.idleTimeout {
                handler.end(
                    "idle", message: "Session ended after \(configuration.idleTimeout.minutesText) without a keypress.")
            } else if now - handler.started > configuration.maxSessionLength {
                handler.end(
                    "too long",
                    message: "Session ended: a session may last \(configuration.maxSessionLength.minutesText).")
            }
        }
    }

    private func deliver(_ bytes: [UInt8], written: @escaping @Sendable () -> Void) {
        guard let context, context.channel.isActive else { return written() }
        bytesOut += bytes.count
        frames += 1
        let data = SSHChannelData(type: .channel, data: .byteBuffer(context.channel.allocator.buffer(bytes: bytes)))
        context.writeAndFlush(wrapOutboundOut(data)).whenComplete { _ in written() }
    }

    /// Ends the session's browser (SIGHUP, then SIGKILL); `message` is shown once the terminal is restored.
    private func end(_ reason: String, message: String? = nil) {
        guard endReason == nil, let process else { return }
        endReason = reason
        if let message { endMessage = message }
        process.hangUp(grace: gateway.configuration.hangupGrace)
    }
    private var endMessage: String?

    private func browserEnded(status: Int32) {
        timer?.cancel()
        gateway.limits.closeSession()
        let duration = ContinuousClock.now - started
        gateway.log.write(
            "session \(number ?? 0) ended (\(endReason ?? (status == 0 ? "quit" : "exited")), status \(status)): "
                + "user \(connection.user), "
                + "address \(connection.address), client \(connection.clientVersion), "
                + "\(duration.formatted(.units(allowed: [.hours, .minutes, .seconds], width: .narrow))), "
                + "\(bytesIn) B in, \(bytesOut) B out in \(frames) frames")
        process = nil
        guard let context, context.channel.isActive else { return }
        if let endMessage {
            let text = "\r\n" + endMessage + "\r\n"
            context.write(
                wrapOutboundOut(
                    SSHChannelData(type: .channel, data: .byteBuffer(context.channel.allocator.buffer(string: text)))),
                promise: nil)
        }
        finish(status: status, context: context)
    }

    /// Writes one sentence to the client's standard error, then exit status 1 and close.
    private func refuse(_ sentence: String, context: ChannelHandlerContext) {
        writeError(sentence, context: context)
        finish(status: 1, context: context)
    }

    private func writeError(_ sentence: String, context: ChannelHandlerContext) {
        let buffer = context.channel.allocator.buffer(string: sentence + "\r\n")
        context.write(wrapOutboundOut(SSHChannelData(type: .stdErr, data: .byteBuffer(buffer))), promise: nil)
    }

    private func finish(status: Int32, context: ChannelHandlerContext) {
        context.flush()
        let channel = context.channel
        context.triggerUserOutboundEvent(SSHChannelRequestEvent.ExitStatus(exitStatus: Int(status)))
            .whenComplete { _ in channel.close(promise: nil) }
    }
}

extension Duration {
    /// The whole nanoseconds, for the APIs that count in them (Dispatch, NIO, poll's milliseconds).
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }

    /// "15 minutes", "90 seconds".
    var minutesText: String {
        let seconds = components.seconds
        if seconds >= 120, seconds % 60 == 0 { return "\(seconds / 60) minutes" }
        return "\(seconds) seconds"
    }
}
