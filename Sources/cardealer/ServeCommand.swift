import ArgumentParser
import DemoServer
import Foundation

/// `cardealer serve`: runs the built-in CarDealer OData service in the foreground, v2 and v4 over the same data.
///
/// The first line on stdout is `Serving http://HOST:PORT/CarDealer.svc/` (the real port when 0 was asked), the
/// second `Serving http://HOST:PORT/v4/CarDealer.svc/ …`, flushed at once so that scripts can read them.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the CarDealer demo data as an OData v2 service, and as OData v4 at a second root."
    )

    @Option(help: "Interface to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one.") var port = 8080
    @Option(help: "People to generate (default 200, or what --data already holds).") var people: Int?
    @Option(help: "SQLite file to reuse, or to generate into when missing or stale.") var data: String?
    @Option(name: .customLong("page-size"), help: "Most entities per collection response.") var pageSize = 100
    @Option(help: "Added latency per request: MS or MS:JITTER.") var latency: String?
    @Option(
        name: .customLong("fail-rate"),
        help: ArgumentHelp(
            "Probability (0…1) that a request fails with 503; for a write, half of those are made and their answer lost."
        )) var failRate = 0.0

    @Flag(help: "Serve hostile data: escape sequences, controls, bidi overrides and 100 KB strings.") var hostile =
        false
    @Flag(help: "Refuse every change (MERGE, PATCH, PUT, DELETE, POST) with 403 and a sentence.") var readOnly = false

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard pageSize > 0 else { throw ValidationError("--page-size must be positive.") }
        guard (0...1).contains(failRate) else { throw ValidationError("--fail-rate must be between 0 and 1.") }
        if let people, people < 1 { throw ValidationError("--people must be at least 1.") }
        _ = try parsedLatency()
    }

    func parsedLatency() throws -> (Int, Int) {
        try Self.parseLatency(latency)
    }

    /// Reads `MS` or `MS:JITTER`.
    static func parseLatency(_ latency: String?) throws -> (Int, Int) {
        guard let latency else { return (0, 0) }
        let parts = latency.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let base = Int(parts[0]), base >= 0,
            let jitter = parts.count == 2 ? Int(parts[1]) : 0, jitter >= 0
        else { throw ValidationError("--latency must be MS or MS:JITTER, e.g. 200 or 200:50.") }
        return (base, jitter)
    }

    func run() async throws {
        let (latencyMilliseconds, jitter) = try parsedLatency()
        // Without --data, the same place the demo keeps its data: $XDG_DATA_HOME/cardealer.
        var data = self.data
        if data == nil {
            let directory = DemoCommand.dataDirectory()
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            data = directory + "/demo-\(people ?? 200)\(hostile ? "-hostile" : "").sqlite"
        }
        let configuration = DemoServerConfiguration(
            host: host, port: port, people: people, dataPath: data, pageSize: pageSize,
            latencyMilliseconds: latencyMilliseconds, latencyJitterMilliseconds: jitter, failRate: failRate,
            hostile: hostile, readOnly: readOnly
        )
        let started = ContinuousClock.now
        let store = try DataStore.open(path: data, people: people, hostile: hostile)
        let elapsed = ContinuousClock.now - started
        let application = DemoServer.buildApplication(configuration, store: store) { port in
            let shownHost = host.contains(":") ? "[\(host)]" : host
            let how = store.generated ? "generated" : "reused"
            // Unbuffered writes: the first line must reach a pipe at once.
            let text =
                "Serving http://\(shownHost):\(port)\(ODataResponder.servicePath)/\n"
                + "Serving http://\(shownHost):\(port)\(ODataResponder.version4Path)/ (the same service in OData v4)\n"
                + "Data: \(store.people) people, \(how) \(store.path) in \(elapsed)\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        try await application.runService()
    }
}
