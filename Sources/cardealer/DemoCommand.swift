import ArgumentParser
import Browser
import DemoServer
import Foundation
import Logging
import Session

/// `cardealer [demo]`: the built-in CarDealer service in-process, and the browser on it.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the built-in CarDealer service in-process and browse it (the default)."
    )

    @Option(help: "Added latency per request, MS or MS:JITTER, to watch prefetching at work.") var latency: String?
    @Option(help: "People in the demo data (generated once, then reused).") var people: Int = 200
    @Option(help: "Probability (0…1) that a request fails, to watch retries and offline handling.") var failRate:
        Double = 0
    @Flag(help: "Serve hostile data: escape sequences, controls, bidi overrides and 100 KB strings.") var hostile =
        false
    @Option(help: "Browse the built-in service in OData 2 or 4 (it speaks both, over the same data).")
    var odataVersion: Int = 2
    @OptionGroup var browserOptions: BrowserOptions

    mutating func run() async throws {
        let (latencyMilliseconds, jitter) = try ServeCommand.parseLatency(latency)
        AppLog.level = browserOptions.logLevel
        let config = try await BrowserOptions.loadConfig()
        guard people > 0 else { throw ValidationError("--people must be at least 1.") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1.") }
        guard odataVersion == 2 || odataVersion == 4 else { throw ValidationError("--odata-version is 2 or 4.") }
        let dataDirectory = Self.dataDirectory()
        let variant = hostile ? "-hostile" : ""
        // The data file and the cache are named by what the demo is.
        try FileManager.default.createDirectory(
            atPath: dataDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        var configuration = DemoServerConfiguration(
            people: people, dataPath: dataDirectory + "/demo-\(people)\(variant).sqlite",
            latencyMilliseconds: latencyMilliseconds, latencyJitterMilliseconds: jitter, failRate: failRate,
            hostile: hostile
        )
        configuration.readsInBackground = true
        // The in-process service logs into the session log (at --log-level), never onto the screen.
        let server = try await DemoServer.start(
            configuration, logger: Logger(label: "demo-server") { AppLogHandler(label: $0) })
        // The demo's port changes every run; its cache is keyed by what it is, not where it listens (and each
        // dialect is a cache of its own).
        let settings = try BrowserRunner.settings(
            serviceRoot: odataVersion == 4 ? server.version4URL : server.baseURL,
            identity: CacheIdentity.demo(people: people, hostile: hostile) + (odataVersion == 4 ? "-v4" : ""),
            options: browserOptions, profile: DisplayProfile.carDealer, config: config
        )
        try await BrowserRunner.run(settings, options: browserOptions, config: config)
    }

    /// `$XDG_DATA_HOME/cardealer` or `~/.local/share/cardealer`.
    static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/cardealer" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/cardealer"
    }
}
