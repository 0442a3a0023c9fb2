import ArgumentParser
import Browser
import DemoServer
import Foundation
import SSHGateway
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// `cardealer serve-ssh`: anyone runs `ssh -p 2222 demo@host` and lands in the browser, with nothing installed.
///
/// Every session is the browser in a process of its own on a pty of its own (ncurses has global state; a process
/// per session also keeps one session's crash to itself), with a cache of its own, browsing the one service: the
/// built-in demo in this process, or `--service`.
struct ServeSSHCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve-ssh",
        abstract: "Serve the browser over SSH: every session runs it on the built-in demo service or on --service.",
        discussion: """
            Connect with: ssh -p PORT demo@HOST (any user name). Only the browser runs: commands, subsystems and \
            port forwarding are refused. On 127.0.0.1 anyone may connect unless --auth says otherwise; on any \
            other address --auth must be given. --auth password reads the password from CARDEALER_SSH_PASSWORD.
            """
    )

    enum AuthMode: String, ExpressibleByArgument, CaseIterable { case none, password, keys }

    @Option(help: "Interface to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port = 2222
    @Option(help: "Browse this OData service root instead of the built-in demo.") var service: String?
    /// How every session signs in to --service: the gateway's configuration, never the visitor's.
    @OptionGroup var signIn: SignInOptions
    @Option(help: "Browse the built-in demo in OData 2 or 4.") var odataVersion = 2
    @Option(help: "People in the built-in demo's data.") var people = 200
    @Flag(help: "The built-in demo refuses every change (a public demo nobody can deface).") var readOnly = false
    @Option(help: ArgumentHelp("Every session opens on this screen (see browse --open).", valueName: "PATH"))
    var open: String?
    @Option(
        help: ArgumentHelp(
            "Who may log in: none (anyone), password (CARDEALER_SSH_PASSWORD) or keys (--authorized-keys).",
            valueName: "MODE"))
    var auth: AuthMode?
    @Option(help: ArgumentHelp("Public keys allowed in (OpenSSH authorized_keys format).", valueName: "FILE"))
    var authorizedKeys: String?
    @Option(
        help: ArgumentHelp(
            "The Ed25519 host key (OpenSSH format, mode 0600); default: generated once in the data directory.",
            valueName: "FILE"))
    var hostKey: String?
    @Option(help: "Most sessions at once.") var maxSessions = 16
    @Option(help: "Most new connections from one address in a minute.") var connectionsPerMinute = 30
    @Option(help: ArgumentHelp("End a session after this long without a keypress.", valueName: "MINUTES"))
    var idleMinutes = 15.0
    @Option(help: ArgumentHelp("The longest a session may last.", valueName: "MINUTES")) var maxSessionMinutes = 120.0
    @Option(
        name: .customLong("memory-mib"),
        help: ArgumentHelp("Address space of each session's process; 0 for no cap.", valueName: "MIB"))
    var memoryMiB = 2048
    @Option(
        help: ArgumentHelp(
            "Quiet on a session's terminal that ends a frame (one SSH message) when the browser has not marked its end; "
                + "0 sends every write as it comes.",
            valueName: "MS"))
    var frameQuietMs = 2
    /// The benchmark's baseline: frames end only after the quiet time, as before the browser marked them.
    @Flag(help: .hidden) var noFrameMark = false
    @Option(help: ArgumentHelp("The log (default: the state directory's cardealer/serve-ssh.log).", valueName: "FILE"))
    var log: String?
    @Flag(help: "Write the log only to its file, not to standard error too.") var quiet = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard maxSessions >= 1, connectionsPerMinute >= 1, idleMinutes > 0, maxSessionMinutes > 0, memoryMiB >= 0
        else {
            throw ValidationError(
                "--max-sessions and --connections-per-minute must be at least 1, --idle-minutes and "
                    + "--max-session-minutes more than 0, --memory-mib at least 0.")
        }
        guard odataVersion == 2 || odataVersion == 4 else { throw ValidationError("--odata-version is 2 or 4.") }
        guard people >= 1 else { throw ValidationError("--people must be at least 1.") }
        guard (0...100).contains(frameQuietMs) else { throw ValidationError("--frame-quiet-ms must be 0 to 100.") }
        if authorizedKeys != nil, auth != nil, auth != .keys {
            throw ValidationError("--authorized-keys goes with --auth keys.")
        }
        if let service {
            guard let url = URL(string: service), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil, url.user == nil, url.password == nil
            else { throw ValidationError("--service must be an http(s) service root URL without credentials.") }
        }
        if service == nil, signIn.anyGiven {
            throw ValidationError("The sign-in and service options go with --service (the built-in demo needs none).")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
    }

    /// What --auth (or its absence) means here.
    func authentication(environment: [String: String]) throws -> GatewayAuthentication {
        let mode = auth ?? (authorizedKeys != nil ? .keys : nil)
        switch mode {
        case nil:
            guard Self.isLoopback(host) else {
                throw ValidationError(
                    "On \(host) anyone who can reach the port could log in: choose --auth password (with "
                        + "CARDEALER_SSH_PASSWORD), --auth keys --authorized-keys FILE, or --auth none for a public "
                        + "demo.")
            }
            return .none
        case .some(.none):
            return .none
        case .some(.password):
            guard let password = environment["CARDEALER_SSH_PASSWORD"], !password.isEmpty else {
                throw ValidationError("--auth password reads the password from CARDEALER_SSH_PASSWORD, which is unset.")
            }
            return .password(password)
        case .some(.keys):
            guard let authorizedKeys else { throw ValidationError("--auth keys needs --authorized-keys FILE.") }
            do {
                return .keys(try AuthorizedKeys.load(from: authorizedKeys))
            } catch {
                throw ValidationError(String(describing: error))
            }
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let authentication = try authentication(environment: environment)
        let dataDirectory = DemoCommand.dataDirectory()
        let keyPath = hostKey ?? dataDirectory + "/ssh_host_ed25519_key"
        let (key, generated): (HostKeyFile, Bool)
        do {
            (key, generated) =
                hostKey == nil
                ? try HostKeyFile.loadOrCreate(at: keyPath) : (try HostKeyFile.load(from: keyPath), false)
        } catch {
            throw ValidationError(String(describing: error))
        }
        let logPath =
            log ?? (AppLog.path(environment: environment) as NSString).deletingLastPathComponent
            + "/serve-ssh.log"
        let gatewayLog = try GatewayLog(path: logPath, echoToStandardError: !quiet)
        // Sessions of a server that was killed outright left their directories behind.
        let stale = SessionDirectories.removeStale(in: NSTemporaryDirectory())
        if !stale.isEmpty {
            gatewayLog.write("removed \(stale.count) session directories left by a server that is gone")
        }
        let claim: SessionDirectories.Claim
        do {
            claim = try SessionDirectories.claim(in: NSTemporaryDirectory())
        } catch {
            throw ValidationError("Could not make a lock file in \(NSTemporaryDirectory()): \(error).")
        }

        // The service every session browses.
        let serviceRoot: String
        let builtIn = service == nil
        if let service {
            serviceRoot = service
        } else {
            try FileManager.default.createDirectory(
                atPath: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var service = DemoServerConfiguration(
                people: people, dataPath: dataDirectory + "/demo-\(people).sqlite", readOnly: readOnly)
            // The sessions' keypresses pass through this process: they win the cores over an answer.
            service.readsInBackground = true
            let server = try await DemoServer.start(service)
            serviceRoot = odataVersion == 4 ? server.version4URL : server.baseURL
        }

        let opening = open
        // What every session's browser is given to sign in with: from this command and its environment only.
        let forwarded = try signIn.forwarded(environment: environment)
        var configuration = GatewayConfiguration(hostKey: key) { request in
            try Self.sessionCommand(
                request, claim: claim, serviceRoot: serviceRoot, builtIn: builtIn, open: opening,
                marksFrames: frameQuietMs > 0 && !noFrameMark, signIn: forwarded)
        }
        configuration.host = host
        configuration.port = port
        configuration.authentication = authentication
        configuration.maxSessions = maxSessions
        configuration.connectionsPerMinute = connectionsPerMinute
        configuration.idleTimeout = .milliseconds(Int(idleMinutes * 60_000))
        configuration.maxSessionLength = .milliseconds(Int(maxSessionMinutes * 60_000))
        configuration.memoryLimitBytes = UInt64(memoryMiB) << 20
        configuration.frameQuiet = .milliseconds(frameQuietMs)
        let gateway = try await SSHGateway.start(configuration, log: gatewayLog)

        let shownHost = host.contains(":") ? "[\(host)]" : host
        var lines = [
            "Serving ssh://\(shownHost):\(gateway.port) (connect: ssh -p \(gateway.port) demo@\(shownHost))",
            "Host key \(key.fingerprint) (ssh-ed25519, \(keyPath)\(generated ? ", generated now" : ""))",
            "Sessions browse \(serviceRoot)\(readOnly && builtIn ? " (read-only)" : "")",
            "Auth: \(authentication.name); at most \(maxSessions) sessions; log \(logPath)",
        ]
        if case .none = authentication, !Self.isLoopback(host) {
            lines.append(
                "WARNING: --auth none on \(host): anyone who can reach port \(gateway.port) gets a session. "
                    + "Keep it to a demo you are watching.")
        }
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        gatewayLog.write("serve-ssh listening on \(shownHost):\(gateway.port), auth \(authentication.name)")

        // Runs until SIGINT or SIGTERM. The sessions' processes need no telling: when this process ends, their
        // ptys close and the kernel hangs them up.
        let (stop, signalled) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { signalled.yield(number) }
            source.resume()
            sources.append(source)
        }
        for await number in stop {
            gatewayLog.write("serve-ssh stopping on signal \(number), \(gateway.openSessions) sessions open")
            try? await gateway.close()
            break
        }
        sources.forEach { $0.cancel() }
    }

    /// The browser for one session: this executable's hidden `ssh-session` command, with a fresh home, cache and
    /// state directory of its own and none of the server's environment (no credentials, no proxies).
    static func sessionCommand(
        _ request: SessionRequest, claim: SessionDirectories.Claim, serviceRoot: String, builtIn: Bool,
        open: String? = nil, marksFrames: Bool = true,
        signIn: (arguments: [String], environment: [String: String]) = ([], [:])
    ) throws -> SessionCommand {
        var template = Array(
            SessionDirectories.template(in: NSTemporaryDirectory(), claim: claim, number: request.number)
                .utf8CString)
        guard let made = mkdtemp(&template) else {
            throw ValidationError("Could not make a session directory: \(String(cString: strerror(errno))).")
        }
        let directory = String(cString: made)
        var environment = request.environment
        environment["TERM"] = request.term
        if environment["LANG"] == nil { environment["LANG"] = "C.UTF-8" }
        environment["HOME"] = directory
        environment["XDG_CACHE_HOME"] = directory + "/cache"
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment["XDG_STATE_HOME"] = directory + "/state"
        environment["XDG_DATA_HOME"] = directory + "/data"
        environment["PATH"] = "/usr/bin:/bin"
        // glibc gives every thread an arena of 64 MiB address space; two keep the address-space cap meaningful.
        environment["MALLOC_ARENA_MAX"] = "2"
        environment["CARDEALER_SSH_USER"] = request.user
        // Frames end at the browser's mark, not after a quiet time (none when every read is sent as it is).
        environment[FrameMark.environmentName] = marksFrames ? "1" : nil
        var arguments = ["ssh-session", serviceRoot, "--cache-directory", directory + "/cache"]
        if builtIn { arguments.append("--built-in") }
        arguments += signIn.arguments
        environment.merge(signIn.environment) { $1 }
        if let open { arguments += ["--open", open] }
        return SessionCommand(
            path: executablePath(), name: "cardealer", arguments: arguments, environment: environment,
            cleanup: { try? FileManager.default.removeItem(atPath: directory) })
    }

    /// This executable: `/proc/self/exe`, which the forked child resolves to the server's own binary even after a
    /// rebuild or upgrade replaced the file (argv[0] may be relative, or a name on PATH).
    static func executablePath() -> String {
        FileManager.default.fileExists(atPath: "/proc/self/exe") ? "/proc/self/exe" : CommandLine.arguments[0]
    }
}

/// `cardealer ssh-session ROOT`: one SSH session's browser, started by `serve-ssh` on the session's pty. Hidden.
struct SSHSessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ssh-session", abstract: "One serve-ssh session's browser (started by serve-ssh).",
        shouldDisplay: false)

    @Argument var serviceRoot: String
    @Flag(help: "The service is the built-in demo: browse it with the CarDealer display profile.") var builtIn = false
    @OptionGroup var browserOptions: BrowserOptions
    @OptionGroup var signIn: SignInOptions

    mutating func run() async throws {
        var settings = try BrowserRunner.settings(
            serviceRoot: serviceRoot, identity: nil, options: browserOptions,
            profile: builtIn ? DisplayProfile.carDealer : nil, config: ConfigFile())
        // (a visitor's `:save` would write on this server's disk, where the visitor can never fetch it)
        settings.savesFiles = false
        try await signIn.apply(to: &settings, serviceRoot: serviceRoot, config: ConfigFile())
        try await BrowserRunner.run(settings, options: browserOptions, config: ConfigFile())
    }
}
