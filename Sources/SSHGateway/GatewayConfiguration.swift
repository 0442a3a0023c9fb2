import Foundation
import NIOSSH
import Synchronization

/// Who may log in.
public enum GatewayAuthentication: Sendable {
    /// Anyone, with any user name: a public demo.
    case none
    /// Any user name with this password.
    case password(String)
    /// Any user name with one of these keys.
    case keys(AuthorizedKeys)

    /// How the log and the start-up lines name it.
    public var name: String {
        switch self {
        case .none: "none (anyone may connect)"
        case .password: "password"
        case .keys(let keys): "keys (\(keys.keys.count) authorized)"
        }
    }
}

/// What the client asked for when it opened a session: the gateway builds the browser's command line from it.
public struct SessionRequest: Sendable {
    /// A number unique within this server's run.
    public let number: Int
    /// The user name the client logged in with (sanitised: printable ASCII, at most 64 characters).
    public let user: String
    /// `TERM` from the pty request, or `xterm-256color` when the client sent something unusable.
    public let term: String
    /// Variables the client sent that the browser may see (`LANG`, `LC_*`, `NO_COLOR`, `COLORTERM`).
    public let environment: [String: String]
}

/// A program to run on a session's pty.
public struct SessionCommand: Sendable {
    public var path: String
    /// The program's own name (argv[0]).
    public var name: String
    public var arguments: [String]
    public var environment: [String: String]
    /// Runs once the process has ended and been reaped (removes the session's directory).
    public var cleanup: @Sendable () -> Void

    public init(
        path: String, name: String, arguments: [String], environment: [String: String],
        cleanup: @escaping @Sendable () -> Void
    ) {
        self.path = path
        self.name = name
        self.arguments = arguments
        self.environment = environment
        self.cleanup = cleanup
    }
}

/// Everything `cardealer serve-ssh` decides.
public struct GatewayConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 2222
    public var hostKey: HostKeyFile
    public var authentication: GatewayAuthentication = .none
    /// Most sessions at once; the next one gets a sentence and is closed.
    public var maxSessions = 16
    /// Most new connections from one address in a minute.
    public var connectionsPerMinute = 30
    /// A session with no keypress for this long is ended.
    public var idleTimeout: Duration = .seconds(15 * 60)
    /// The longest a session may last.
    public var maxSessionLength: Duration = .seconds(2 * 60 * 60)
    /// The address-space cap of each session's process, in bytes; 0 for none.
    public var memoryLimitBytes: UInt64 = 2 << 30
    /// How long after a failed password or key the answer waits.
    public var failureDelay: Duration = .seconds(1)
    /// Quiet on a session's pty that ends a frame (one SSH message); zero sends each read as it comes, as a plain
    /// pty-to-socket copy would (the benchmark's baseline).
    public var frameQuiet: Duration = .milliseconds(2)
    /// How long after SIGHUP a session's process gets SIGKILL.
    public var hangupGrace: Duration = .seconds(2)
    /// Builds the program a session runs.
    public var command: @Sendable (SessionRequest) throws -> SessionCommand

    public init(hostKey: HostKeyFile, command: @escaping @Sendable (SessionRequest) throws -> SessionCommand) {
        self.hostKey = hostKey
        self.command = command
    }
}

/// Counts sessions and recent connections per address, for every connection of one server.
final class GatewayLimits: Sendable {
    private struct Counts {
        var sessions = 0
        var recentConnections: [String: [ContinuousClock.Instant]] = [:]
        var nextNumber = 0
    }
    private let counts = Mutex(Counts())
    let maxSessions: Int
    let connectionsPerMinute: Int

    init(maxSessions: Int, connectionsPerMinute: Int) {
        self.maxSessions = maxSessions
        self.connectionsPerMinute = connectionsPerMinute
    }

    /// Records a connection from `address`; false when it is over the address's limit for the last minute.
    func admitConnection(from address: String, now: ContinuousClock.Instant = .now) -> Bool {
        counts.withLock { counts in
            let window = now - .seconds(60)
            var times = counts.recentConnections[address, default: []].filter { $0 > window }
            // Forget addresses that went quiet, so a scan of many addresses does not grow the table forever.
            if counts.recentConnections.count > 10_000 {
                counts.recentConnections = counts.recentConnections.filter { $0.value.contains { $0 > window } }
            }
            guard times.count < connectionsPerMinute else {
                counts.recentConnections[address] = times
                return false
            }
            times.append(now)
            counts.recentConnections[address] = times
            return true
        }
    }

    /// Takes a session slot and numbers the session; nil when every slot is taken.
    func openSession() -> Int? {
        counts.withLock { counts in
            guard counts.sessions < maxSessions else { return nil }
            counts.sessions += 1
            counts.nextNumber += 1
            return counts.nextNumber
        }
    }

    func closeSession() { counts.withLock { $0.sessions = max(0, $0.sessions - 1) } }

    var openSessions: Int { counts.withLock { $0.sessions } }
}

extension String {
    /// Printable ASCII only (spaces too when `spaces`), at most `limit` characters: what reaches a log line or an
    /// environment variable.
    func sanitisedForGateway(limit: Int = 64, spaces: Bool = false) -> String {
        let lowest: UInt32 = spaces ? 0x20 : 0x21
        return String(
            String.UnicodeScalarView(unicodeScalars.filter { (lowest...0x7e).contains($0.value) }.prefix(limit)))
    }
}

/// `TERM` as the client sent it when it is a plausible terminfo name, otherwise a safe default.
func gatewayTerm(_ requested: String) -> String {
    let allowed = requested.unicodeScalars.allSatisfy {
        ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5a)
            || ($0.value >= 0x61 && $0.value <= 0x7a) || "-_.+".unicodeScalars.contains($0)
    }
    guard allowed, (1...64).contains(requested.count), !requested.hasPrefix(".") else { return "xterm-256color" }
    return requested
}
