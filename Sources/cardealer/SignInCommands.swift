import ArgumentParser
import Foundation
import ODataHTTP
import Session

/// How `browse`, `login`, `logout` and `whoami` sign in to a service with OAuth 2.0. Secrets never come from the
/// command line (it shows in `ps`) or the config file: `CARDEALER_CLIENT_SECRET`, or a file only its owner reads.
struct SignInOptions: ParsableArguments {
    @Option(name: .customLong("client-id"), help: "The OAuth 2.0 client id; with it, requests carry a bearer token.")
    var clientID: String?
    @Option(name: .customLong("token-url"), help: "The authorization server's token endpoint.")
    var tokenURL: String?
    @Option(
        name: .customLong("device-url"), help: "The device authorization endpoint, for --grant device (or --issuer).")
    var deviceURL: String?
    @Option(
        name: .customLong("authorize-url"), help: "The authorization endpoint, for --grant code (or --issuer).")
    var authorizeURL: String?
    @Option(
        help: "An OpenID issuer whose discovery document names the token and device endpoints (in place of the URLs).")
    var issuer: String?
    @Option(
        help: ArgumentHelp(
            "How to sign in: client-credentials (the client as itself, with its secret), device (you enter a "
                + "code on another device's web browser; works over SSH), or code (login only: a web browser here, "
                + "PKCE, back to 127.0.0.1)."))
    var grant: SignInSettings.Grant?
    @Option(help: "The scopes to ask for, space-separated.") var scope: String?
    @Option(
        help: ArgumentHelp(
            "A file holding the client secret (mode 0600); else CARDEALER_CLIENT_SECRET.", valueName: "FILE"))
    var clientSecretFile: String?
    @Option(
        help: ArgumentHelp(
            "Where tokens are kept (default: $XDG_STATE_HOME/cardealer/tokens.json).", valueName: "FILE"))
    var tokenFile: String?
    @Flag(help: "Let credentials go over plain http to a host that is not loopback.")
    var allowPlainHTTP = false
    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "A header every request to the service carries, e.g. APIKey=@env:SANDBOX_KEY (VALUE or @env:VAR); "
                + "repeatable; never logged.", valueName: "NAME=VALUE"))
    var headers: [String] = []
    @Option(
        name: .customLong("client-cert"),
        help: ArgumentHelp("A client certificate (PEM) for mutual TLS.", valueName: "FILE"))
    var clientCertificate: String?
    @Option(
        name: .customLong("client-key"),
        help: ArgumentHelp(
            "The client certificate's key (PEM; an encrypted one's passphrase from CARDEALER_CLIENT_KEY_PASSPHRASE).",
            valueName: "FILE"))
    var clientKey: String?
    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp("CAs to trust (PEM) in place of the system's.", valueName: "FILE"))
    var caFile: String?
    @Flag(help: "Do not verify the service's TLS certificate (said on the status line all session).")
    var insecure = false
    @Option(name: .customLong("sap-client"), help: "The SAP client (three digits) every request names.")
    var sapClient: String?
    @Option(name: .customLong("sap-language"), help: "The SAP logon language (EN, DE, …) every request names.")
    var sapLanguage: String?

    /// Headers no option may set: the protocol's own.
    static let reservedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "cookie", "accept-encoding",
    ]

    /// The `--header` pairs, values from the environment where they say `@env:VAR`.
    func serviceHeaders(environment: [String: String]) throws -> [(name: String, value: String)] {
        try headers.map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1)
            let tokenCharacters = CharacterSet(
                charactersIn: "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
            guard parts.count == 2, !parts[0].isEmpty,
                parts[0].unicodeScalars.allSatisfy(tokenCharacters.contains)
            else {
                throw ValidationError(
                    "--header wants NAME=VALUE, as APIKey=@env:SANDBOX_KEY; '\(parts.first ?? "")' is not.")
            }
            let name = String(parts[0])
            guard !Self.reservedHeaders.contains(name.lowercased()) else {
                throw ValidationError("--header cannot set \(name): the transport sends it itself.")
            }
            var value = String(parts[1])
            if value.hasPrefix("@env:") {
                let variable = String(value.dropFirst(5))
                guard let found = environment[variable], !found.isEmpty else {
                    throw ValidationError("--header \(name): the environment has no \(variable).")
                }
                value = found
            }
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ValidationError("--header \(name): the value holds control characters.")
            }
            return (name, value)
        }
    }

    /// `sap-client` and `sap-language` as every request's query parameters.
    func serviceParameters() throws -> [(name: String, value: String)] {
        var parameters: [(name: String, value: String)] = []
        if let sapClient {
            guard sapClient.count == 3, sapClient.allSatisfy(\.isASCII), sapClient.allSatisfy(\.isNumber) else {
                throw ValidationError("--sap-client wants the client's three digits, as 100.")
            }
            parameters.append(("sap-client", sapClient))
        }
        if let sapLanguage {
            guard (1...2).contains(sapLanguage.count), sapLanguage.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw ValidationError("--sap-language wants a language key, as EN or DE.")
            }
            parameters.append(("sap-language", sapLanguage.uppercased()))
        }
        return parameters
    }

    /// The TLS options as settings; nil when none was given.
    func clientTLS(environment: [String: String]) -> ClientTLS? {
        guard clientCertificate != nil || clientKey != nil || caFile != nil || insecure else { return nil }
        return ClientTLS(
            certificateFile: clientCertificate.map(Self.absolute), keyFile: clientKey.map(Self.absolute),
            keyPassphrase: environment["CARDEALER_CLIENT_KEY_PASSPHRASE"], caFile: caFile.map(Self.absolute),
            insecure: insecure)
    }

    /// The authorization server as every command speaks to it: the service's TLS settings when it is on the
    /// service's origin (always verified), the system's defaults elsewhere.
    func tokenEndpoint(for url: String, serviceRoot: String) throws -> TokenEndpoint {
        do {
            let tls = try clientTLS(environment: ProcessInfo.processInfo.environment)?.forTokenEndpoint(
                url, serviceRoot: serviceRoot)?.configuration()
            return TokenEndpoint(tls: tls)
        } catch {
            throw SessionError("Cannot use the TLS settings: \(error.description).")
        }
    }

    /// Whether any option here was given (serve-ssh refuses them without --service).
    var anyGiven: Bool {
        isGiven || !headers.isEmpty || sapClient != nil || sapLanguage != nil || clientCertificate != nil
            || clientKey != nil || caFile != nil || insecure
    }

    /// These options as `serve-ssh` hands them to each session's browser: arguments, and the secrets (client
    /// secret, header values, the key's passphrase) in its environment rather than on its command line. A
    /// session keeps its own tokens in its own state directory: each visitor signs in on their own with the
    /// device grant; the client credentials are the gateway's.
    func forwarded(environment: [String: String]) throws -> (arguments: [String], environment: [String: String]) {
        var arguments: [String] = []
        var secrets: [String: String] = [:]
        func pass(_ name: String, _ value: String?) {
            if let value { arguments += [name, value] }
        }
        pass("--client-id", clientID)
        pass("--token-url", tokenURL)
        pass("--device-url", deviceURL)
        pass("--authorize-url", authorizeURL)
        pass("--issuer", issuer)
        pass("--grant", grant?.rawValue)
        pass("--scope", scope)
        pass("--sap-client", sapClient)
        pass("--sap-language", sapLanguage)
        pass("--client-cert", clientCertificate.map(Self.absolute))
        pass("--client-key", clientKey.map(Self.absolute))
        pass("--ca-file", caFile.map(Self.absolute))
        if insecure { arguments.append("--insecure") }
        if allowPlainHTTP { arguments.append("--allow-plain-http") }
        if let secret = try secret(environment: environment) { secrets["CARDEALER_CLIENT_SECRET"] = secret }
        if let passphrase = environment["CARDEALER_CLIENT_KEY_PASSPHRASE"] {
            secrets["CARDEALER_CLIENT_KEY_PASSPHRASE"] = passphrase
        }
        for (index, header) in try serviceHeaders(environment: environment).enumerated() {
            let variable = "CARDEALER_GATEWAY_HEADER_\(index)"
            secrets[variable] = header.value
            arguments += ["--header", "\(header.name)=@env:\(variable)"]
        }
        return (arguments, secrets)
    }

    /// Puts these options (the config file's `[sign-in]` filling what they leave unsaid) into `settings`.
    func apply(to settings: inout SessionSettings, serviceRoot: String, config: ConfigFile) async throws {
        let environment = ProcessInfo.processInfo.environment
        settings.tls = clientTLS(environment: environment)
        if insecure {
            FileHandle.standardError.write(
                Data(
                    "Warning: --insecure: the service's TLS certificate is not verified; anyone in between can read and change what is sent.\n"
                        .utf8))
        }
        settings.headers = try serviceHeaders(environment: environment)
        settings.parameters = try serviceParameters()
        // Credentials of any kind (a password, a token, an API key) cross no network unencrypted unless asked to.
        if settings.credentials.authorization != nil || !settings.headers.isEmpty,
            let problem = SignInSettings.plainHTTPProblem(serviceRoot, what: "the service", allowed: allowPlainHTTP)
        {
            throw SessionError("Cannot send credentials: \(problem).")
        }
        let options = completed(by: config, serviceRoot: serviceRoot)
        settings.signIn = try await options.settings(serviceRoot: serviceRoot.appendingSlash)
        settings.tokenFile = options.tokenFile.map(Self.absolute)
    }

    /// Whether any sign-in option was given.
    var isGiven: Bool { clientID != nil || tokenURL != nil || issuer != nil }

    /// These options, with the config file's `[sign-in]` for what they leave unsaid when `serviceRoot` is the
    /// config's service.
    func completed(by config: ConfigFile, serviceRoot: String) -> SignInOptions {
        guard config.service.map({ $0.appendingSlash }) == serviceRoot.appendingSlash, !config.signIn.isEmpty else {
            return self
        }
        var options = self
        let saved = config.signIn
        options.clientID = clientID ?? saved["client-id"]
        if tokenURL == nil, issuer == nil {
            options.tokenURL = saved["token-url"]
            options.issuer = saved["issuer"]
        }
        options.deviceURL = deviceURL ?? saved["device-url"]
        options.authorizeURL = authorizeURL ?? saved["authorize-url"]
        options.grant = grant ?? saved["grant"].flatMap(SignInSettings.Grant.init(rawValue:))
        options.scope = scope ?? saved["scope"]
        options.clientSecretFile = clientSecretFile ?? saved["client-secret-file"]
        return options
    }

    var store: TokenStore { Self.store(at: tokenFile) }

    /// The token store at `--token-file`, else the default place.
    static func store(at tokenFile: String?) -> TokenStore {
        TokenStore(path: tokenFile.map(absolute) ?? TokenStore.defaultPath())
    }

    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The settings for `serviceRoot`, the token endpoint discovered from `--issuer` when that is how it is named;
    /// nil without `--client-id`.
    func settings(
        serviceRoot: String, environment: [String: String] = ProcessInfo.processInfo.environment
    )
        async throws -> SignInSettings?
    {
        guard isGiven else { return nil }
        guard let clientID, !clientID.isEmpty else {
            throw ValidationError("--token-url and --issuer need --client-id: the client to sign in as.")
        }
        var tokenURL = self.tokenURL
        var deviceURL = self.deviceURL
        var authorizeURL = self.authorizeURL
        if tokenURL == nil, let issuer {
            if let problem = SignInSettings.plainHTTPProblem(issuer, what: "the issuer", allowed: allowPlainHTTP) {
                throw ValidationError("Cannot sign in: \(problem).")
            }
            do {
                let found = try await tokenEndpoint(for: issuer, serviceRoot: serviceRoot).discover(issuer: issuer)
                tokenURL = found.tokenURL
                deviceURL = deviceURL ?? found.deviceURL
                authorizeURL = authorizeURL ?? found.authorizeURL
            } catch {
                throw ValidationError("Cannot sign in: \(error).")
            }
        }
        guard let tokenURL else {
            throw ValidationError("--client-id needs --token-url URL, or --issuer URL to discover it.")
        }
        var settings = SignInSettings(
            serviceRoot: serviceRoot, tokenURL: tokenURL, deviceURL: deviceURL, authorizeURL: authorizeURL,
            clientID: clientID,
            grant: grant ?? .clientCredentials,
            scope: scope,
            clientSecret: try secret(environment: environment), allowsPlainHTTP: allowPlainHTTP)
        settings.scope = scope
        settings.authenticatesWithCertificate = clientCertificate != nil && clientKey != nil
        if let problem = settings.problem() { throw ValidationError("Cannot sign in: \(problem).") }
        return settings
    }

    /// The client secret: `--client-secret-file` (which only its owner may read), else `CARDEALER_CLIENT_SECRET`;
    /// none for a public client (the device grant).
    func secret(environment: [String: String]) throws -> String? {
        if let file = clientSecretFile {
            var info = stat()
            guard stat(file, &info) == 0, let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw ValidationError("Cannot read the client secret file \(file).")
            }
            guard info.st_mode & 0o077 == 0 else {
                throw ValidationError(
                    "The client secret file \(file) is readable by others; run `chmod 600 \(file)` and try again.")
            }
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return environment["CARDEALER_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension SignInSettings.Grant: ExpressibleByArgument {}

/// The service root of a sign-in command: the argument, else the config file's service, with one trailing slash.
func signInRoot(_ url: String?) async throws -> String {
    let config = try await BrowserOptions.loadConfig()
    guard let root = url ?? config.service else {
        throw ValidationError("Give the service root URL, or set service in \(ConfigFile.path()).")
    }
    guard let parsed = URL(string: root), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""),
        parsed.host != nil
    else { throw ValidationError("'\(root)' is not an http(s) URL of an OData service root.") }
    return root.appendingSlash
}

/// `cardealer login URL`: asks for a token now and keeps it for `browse`.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in to a service with OAuth 2.0 and keep the token (renewed by itself while browsing).")

    @Argument(help: "The service root (default: service in config.toml).") var url: String?
    @OptionGroup var signIn: SignInOptions

    func run() async throws {
        let root = try await signInRoot(url)
        let signIn = self.signIn.completed(by: try await BrowserOptions.loadConfig(), serviceRoot: root)
        guard signIn.clientID != nil else {
            throw ValidationError("login needs --client-id and --token-url (or --issuer).")
        }
        guard let settings = try await signIn.settings(serviceRoot: root) else { return }
        let source = TokenSource(
            settings: settings, store: signIn.store,
            endpoint: try signIn.tokenEndpoint(for: settings.tokenURL, serviceRoot: root))
        await source.setPromptHandler { prompt in
            guard let prompt else { return }
            let minutes = max(1, Int((prompt.expiresAt.timeIntervalSinceNow / 60).rounded(.up)))
            // (written at once: stdout to a pipe is buffered until the end, and this must be read while it waits)
            FileHandle.standardOutput.write(
                Data("To sign in, \(prompt.sentence) (within \(minutes) min). Waiting…\n".utf8))
        }
        await source.setBrowserHandler { url in
            FileHandle.standardOutput.write(
                Data(
                    "To sign in, open this in a web browser on this machine:\n\(TokenAnswer.clean(url))\nWaiting…\n"
                        .utf8))
            LoginCommand.openBrowser(url)
        }
        let token: IssuedToken
        do {
            token = try await source.signIn()
        } catch {
            FileHandle.standardError.write(Data("Could not sign in to \(root): \(error.description).\n".utf8))
            throw ExitCode(1)
        }
        print(
            "Signed in to \(root) as \(token.user ?? "client " + settings.clientID) by \(settings.grant.rawValue)"
                + "; \(WhoamiCommand.ending(token)). The token is kept in \(signIn.store.path) (mode 0600).")
    }
}

extension LoginCommand {
    /// Opens `url` in the desktop's web browser, when there is a desktop here (not over SSH) and `xdg-open`.
    static func openBrowser(_ url: String) {
        let environment = ProcessInfo.processInfo.environment
        guard environment["SSH_CONNECTION"] == nil,
            environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil
        else { return }
        for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let opener = "\(directory)/xdg-open"
            guard FileManager.default.isExecutableFile(atPath: opener) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [url]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
            return
        }
    }
}

/// `cardealer logout URL`: forgets the service's tokens.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Forget the tokens kept for a service.")

    @Argument(help: "The service root (default: service in config.toml).") var url: String?
    @Option(help: ArgumentHelp("Where tokens are kept.", valueName: "FILE")) var tokenFile: String?

    func run() async throws {
        let root = try await signInRoot(url)
        let store = SignInOptions.store(at: tokenFile)
        do {
            let removed = try store.remove(serviceRoot: root)
            print(removed == 0 ? "No token was kept for \(root)." : "Forgot the tokens kept for \(root).")
        } catch {
            FileHandle.standardError.write(Data("Could not sign out: \(error.description).\n".utf8))
            throw ExitCode(1)
        }
    }
}

/// `cardealer whoami URL`: who the kept token is for, and when it ends. Asks the network nothing.
struct WhoamiCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Say who the token kept for a service is for, and when it ends.")

    @Argument(help: "The service root (default: service in config.toml).") var url: String?
    @Option(help: ArgumentHelp("Where tokens are kept.", valueName: "FILE")) var tokenFile: String?

    func run() async throws {
        let root = try await signInRoot(url)
        let store = SignInOptions.store(at: tokenFile)
        let entries: [TokenStore.Entry]
        do {
            entries = try store.entries().filter { $0.serviceRoot == root }
        } catch {
            FileHandle.standardError.write(Data("\(error.description).\n".utf8))
            throw ExitCode(1)
        }
        guard !entries.isEmpty else {
            print("Not signed in to \(root).")
            throw ExitCode(1)
        }
        for entry in entries {
            print(
                "\(root): \(entry.token.user ?? "client " + entry.clientID) (client \(entry.clientID), "
                    + "\(entry.grant)); \(Self.ending(entry.token)).")
        }
    }

    /// When the token ends, and whether it can be renewed.
    static func ending(_ token: IssuedToken, now: Date = Date()) -> String {
        let renewal = token.refreshToken == nil ? "" : ", renewed with its refresh token"
        guard let expiresAt = token.expiresAt else { return "the server did not say when the token ends" + renewal }
        let format = ISO8601DateFormatter()
        let left = expiresAt.timeIntervalSince(now)
        if left <= 0 { return "the token ended at \(format.string(from: expiresAt))" + renewal }
        let span = left < 120 ? "\(Int(left)) s" : left < 7200 ? "\(Int(left / 60)) min" : "\(Int(left / 3600)) h"
        return "the token ends at \(format.string(from: expiresAt)) (in \(span))" + renewal
    }
}
