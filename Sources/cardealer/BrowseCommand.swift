import ArgumentParser
import Browser
import Foundation
import Session
import Terminal

/// `cardealer browse URL`: any OData v2 or v4 service.
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse any OData v2 or v4 service by its service root URL."
    )

    @Argument(help: "The service root, e.g. http://127.0.0.1:8080/CarDealer.svc/ (default: service in config.toml)")
    var url: String?
    @Option(help: "A display profile (JSON) naming titles, columns and link entities to hop through.")
    var profile: String?
    @OptionGroup var browserOptions: BrowserOptions
    @OptionGroup var signIn: SignInOptions

    mutating func run() async throws {
        AppLog.level = browserOptions.logLevel
        let config = try await BrowserOptions.loadConfig()
        guard let url = url ?? config.service else {
            throw ValidationError(
                "Give the service root URL, or set service in \(ConfigFile.path()) (cardealer config default shows how)."
            )
        }
        guard let parsed = URL(string: url), let scheme = parsed.scheme,
            ["http", "https"].contains(scheme.lowercased()),
            parsed.host != nil
        else { throw ValidationError("'\(url)' is not an http(s) URL of an OData service root.") }
        // Credentials in the URL would end up in the request log and the cache; they belong elsewhere.
        guard parsed.user == nil, parsed.password == nil else {
            throw ValidationError(
                "The URL carries credentials; put them in CARDEALER_USER and CARDEALER_PASSWORD (or a 0600 "
                    + "credentials file, see the README) and give the URL without them."
            )
        }
        var displayProfile: DisplayProfile? = nil
        if let profile = profile ?? config.profile {
            do {
                displayProfile = try DisplayProfile.load(from: Data(contentsOf: URL(fileURLWithPath: profile)))
            } catch {
                throw ValidationError("Could not read the display profile \(profile): \(error.localizedDescription)")
            }
        }
        // No identity: the cache is the service's, also when the URL names one of its entity sets.
        var settings = try BrowserRunner.settings(
            serviceRoot: url, identity: nil, options: browserOptions, profile: displayProfile, config: config)
        // Signed in with OAuth: the token store's entry is the service root's, also when the URL names a set.
        try await signIn.apply(to: &settings, serviceRoot: url, config: config)
        try await BrowserRunner.run(settings, options: browserOptions, config: config)
    }
}

/// Options every browsing command takes.
struct BrowserOptions: ParsableArguments {
    @Option(help: "Where to keep the cache database (default: the XDG cache directory).") var cacheDirectory: String?
    @Option(
        name: .customLong("annotations"),
        help: ArgumentHelp(
            "An annotation document (a file, or a URL on the service's host) that describes the service's screens; "
                + "repeatable, a later one overriding an earlier one and the service's own.", valueName: "FILE|URL"))
    var annotations: [String] = []
    @Option(
        help: ArgumentHelp(
            "Write keypresses, frames and requests to FILE as JSON lines (for benchmarks).", valueName: "FILE"))
    var trace: String?
    @Flag(help: "Fetch only what is on screen when it is shown, predicting nothing (a baseline to compare with).")
    var noPrefetch = false
    @Flag(
        help: ArgumentHelp(
            "Read no annotation document the service advertises, only its $metadata and --annotations (a baseline "
                + "to compare with, or a way past a broken one)."))
    var noAnnotationDocuments = false
    /// Prefetches ask for whole entities, not only what the next screens show (to measure `$select`'s share).
    @Flag(help: .hidden) var noSelect = false
    @Option(
        help: ArgumentHelp("Seconds to connect, and to wait for the next bytes of an answer.", valueName: "SECONDS"))
    var timeout: Double = 10
    @Option(
        help: ArgumentHelp(
            "Seconds one request may take in all; a fetch with its retries gets half as long again.",
            valueName: "SECONDS"))
    var requestTimeout: Double = 30
    @Option(help: ArgumentHelp("The largest answer accepted, in MiB once decompressed.", valueName: "MIB"))
    var maxResponseMiB: Int = 32
    @Option(help: ArgumentHelp("The most entities one answer may hold, nested ones included.", valueName: "N"))
    var maxEntities: Int = 20_000
    @Option(
        help: ArgumentHelp(
            "Open straight on this screen, with the stack behind it (Esc walks back): Person(7), Person(7)/PersonCar.",
            valueName: "PATH"))
    var open: String?
    @Option(help: "How much goes to the log file: error, warning, info or debug.") var logLevel: AppLog.Level =
        .info
    @Option(help: "Colours: dark, light, high-contrast or monochrome (NO_COLOR always means monochrome).")
    var theme: Theme?
    @Flag(help: "Leave the mouse to the terminal (its own selection and copy) instead of clicks and the wheel.")
    var noMouse = false

    /// The config file, checked (a bad one stops the command with its line and reason).
    static func loadConfig() async throws -> ConfigFile {
        try await MainActor.run { try ConfigFile.load(path: ConfigFile.path()) }
    }

    mutating func validate() throws {
        guard timeout > 0, timeout <= 3600, requestTimeout > 0, requestTimeout <= 3600 else {
            throw ValidationError("--timeout and --request-timeout must be between 0 and 3600 seconds.")
        }
        guard (1...4096).contains(maxResponseMiB) else {
            throw ValidationError("--max-response-mib must be 1 to 4096.")
        }
        guard maxEntities >= 1 else { throw ValidationError("--max-entities must be at least 1.") }
    }
}

extension Theme: ExpressibleByArgument {}
