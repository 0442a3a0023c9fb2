import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSH
import Synchronization

/// `cardealer serve-ssh`: an SSH server whose every session is the browser, in a process of its own on a pty of its
/// own. No shell, no commands, no subsystems, no port forwarding.
public final class SSHGateway: Sendable {
    private let channel: Channel
    private let context: GatewayContext
    /// The port it listens on (the real one when 0 was asked).
    public var port: Int { context.port }
    /// Sessions running now.
    public var openSessions: Int { context.limits.openSessions }

    private init(channel: Channel, context: GatewayContext) {
        self.channel = channel
        self.context = context
    }

    /// Listens on `configuration.host`:`configuration.port`.
    public static func start(
        _ configuration: GatewayConfiguration, log: GatewayLog,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> SSHGateway {
        let limits = GatewayLimits(
            maxSessions: configuration.maxSessions, connectionsPerMinute: configuration.connectionsPerMinute)
        // The port is known only after binding; connections read it from here.
        let portBox = PortBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                let context = GatewayContext(
                    configuration: configuration, limits: limits, log: log, port: portBox.port)
                return Self.initialize(connection: channel, context: context)
            }
            .bind(host: configuration.host, port: configuration.port).get()
        let port = channel.localAddress?.port ?? configuration.port
        portBox.port = port
        return SSHGateway(
            channel: channel,
            context: GatewayContext(configuration: configuration, limits: limits, log: log, port: port))
    }

    /// Stops listening; sessions already open carry on until they end.
    public func close() async throws {
        try await channel.close()
    }

    /// The pipeline of one TCP connection.
    private static func initialize(connection channel: Channel, context: GatewayContext) -> EventLoopFuture<Void> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard context.limits.admitConnection(from: address) else {
            context.log.write(
                "\(address): connection refused, over \(context.configuration.connectionsPerMinute) a minute")
            return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed)
        }
        let info = ConnectionInfo(address: address)
        let configuration = context.configuration
        var server = SSHServerConfiguration(
            hostKeys: [configuration.hostKey.sshKey],
            userAuthDelegate: GatewayAuthDelegate(
                authentication: configuration.authentication, connection: info, log: context.log,
                failureDelay: configuration.failureDelay),
            globalRequestDelegate: RefusingGlobalRequests(connection: info, log: context.log))
        server.maxAuthAttempts = 12
        // A connection that has not logged in within a minute is closed: a half-open handshake holds a socket.
        channel.eventLoop.scheduleTask(in: .seconds(60)) {
            if !info.authenticated { channel.close(promise: nil) }
        }
        return channel.eventLoop.makeCompletedFuture {
            let sync = channel.pipeline.syncOperations
            try sync.addHandler(VersionSniffer(connection: info))
            try sync.addHandler(
                NIOSSHHandler(
                    role: .server(server), allocator: channel.allocator,
                    inboundChildChannelInitializer: { child, type in
                        switch type {
                        case .session:
                            return child.eventLoop.makeCompletedFuture {
                                try child.pipeline.syncOperations.addHandler(
                                    SessionChannelHandler(gateway: context, connection: info))
                            }
                        case .directTCPIP(let target):
                            context.log.write(
                                "\(info.user)@\(info.address): refused a port forward to "
                                    + "\(target.targetHost.sanitisedForGateway()):\(target.targetPort)")
                            return child.eventLoop.makeFailedFuture(GatewayRefusal.forwarding)
                        case .forwardedTCPIP:
                            return child.eventLoop.makeFailedFuture(GatewayRefusal.forwarding)
                        }
                    }))
            try sync.addHandler(ConnectionErrorHandler(connection: info, log: context.log))
        }
    }
}

enum GatewayRefusal: Error { case forwarding }

/// Holds the bound port for connections accepted after binding.
private final class PortBox: Sendable {
    private let value = Atomic(0)
    var port: Int {
        get { value.load(ordering: .acquiring) }
        set { value.store(newValue, ordering: .releasing) }
    }
}

/// Notes the client's version line ("SSH-2.0-OpenSSH_9.2p1 …") for the session log, then steps aside.
final class VersionSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let connection: ConnectionInfo
    private var seen: [UInt8] = []

    init(connection: ConnectionInfo) { self.connection = connection }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        seen += buffer.readableBytesView.prefix(512 - seen.count)
        if let newline = seen.firstIndex(of: 10) ?? (seen.count >= 512 ? seen.endIndex : nil) {
            // Lines before the version line are allowed by RFC 4253; the one starting SSH- is the version.
            let lines = seen[..<newline].split(separator: 10)
            if let line = lines.first(where: { $0.starts(with: Array("SSH-".utf8)) }) {
                connection.clientVersion = String(decoding: line, as: UTF8.self).sanitisedForGateway(
                    limit: 80, spaces: true)
            }
            context.fireChannelRead(data)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        context.fireChannelRead(data)
    }
}

/// Logs why a connection failed (a protocol error, a reset) and closes it.
final class ConnectionErrorHandler: ChannelInboundHandler {
    typealias InboundIn = Any
    private let connection: ConnectionInfo
    private let log: GatewayLog

    init(connection: ConnectionInfo, log: GatewayLog) {
        self.connection = connection
        self.log = log
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        log.write("\(connection.address): connection closed on an error: \(String(describing: error).prefix(200))")
        context.close(promise: nil)
    }
}

/// Refuses `ssh -R` (the server listening for the client) with a log line.
struct RefusingGlobalRequests: GlobalRequestDelegate {
    let connection: ConnectionInfo
    let log: GatewayLog

    func tcpForwardingRequest(
        _ request: GlobalRequest.TCPForwardingRequest, handler: NIOSSHHandler,
        promise: EventLoopPromise<GlobalRequest.TCPForwardingResponse>
    ) {
        log.write("\(connection.user)@\(connection.address): refused a remote port forward")
        promise.fail(GatewayRefusal.forwarding)
    }
}

/// Checks passwords or keys as configured; a failed attempt is logged (never with what was typed) and answered
/// after a delay, so that guessing is slow.
final class GatewayAuthDelegate: NIOSSHServerUserAuthenticationDelegate {
    private let authentication: GatewayAuthentication
    private let connection: ConnectionInfo
    private let log: GatewayLog
    private let failureDelay: Duration

    init(authentication: GatewayAuthentication, connection: ConnectionInfo, log: GatewayLog, failureDelay: Duration) {
        self.authentication = authentication
        self.connection = connection
        self.log = log
        self.failureDelay = failureDelay
    }

    var supportedAuthenticationMethods: NIOSSHAvailableUserAuthenticationMethods {
        switch authentication {
        case .none: [.password, .publicKey]
        case .password: .password
        case .keys: .publicKey
        }
    }

    func requestReceived(
        request: NIOSSHUserAuthenticationRequest, responsePromise: EventLoopPromise<NIOSSHUserAuthenticationOutcome>
    ) {
        let user = request.username.sanitisedForGateway()
        let accepted: Bool
        var attempted = true
        switch (authentication, request.request) {
        case (.none, _):
            accepted = true
        case (.password(let expected), .password(let offered)):
            accepted = Self.sameSecret(offered.password, expected)
        case (.keys(let authorized), .publicKey(let offered)):
            // swift-nio-ssh has checked the signature before asking.
            accepted = authorized.keys.contains(offered.publicKey)
        default:
            // The "none" probe every client sends first, or a method not on offer: no attempt, no delay.
            accepted = false
            attempted = false
        }
        if accepted {
            connection.user = user.isEmpty ? "?" : user
            connection.authenticated = true
            responsePromise.succeed(.success)
            return
        }
        guard attempted else { return responsePromise.succeed(.failure) }
        let method = if case .password = request.request { "password" } else { "key" }
        log.write("\(connection.address): failed \(method) login as \(user.isEmpty ? "?" : user)")
        let delay = TimeAmount.nanoseconds(failureDelay.nanoseconds)
        responsePromise.futureResult.eventLoop.scheduleTask(in: delay) { responsePromise.succeed(.failure) }
    }

    /// Compares digests, so that the time taken does not tell how much of a guess was right.
    static func sameSecret(_ offered: String, _ expected: String) -> Bool {
        let left = Array(SHA256.hash(data: Array(offered.utf8)))
        let right = Array(SHA256.hash(data: Array(expected.utf8)))
        return zip(left, right).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
