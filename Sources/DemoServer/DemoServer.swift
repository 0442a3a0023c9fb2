import Hummingbird
import Logging

/// The built-in CarDealer service, as OData v2 and as OData v4 at a second root.
///
/// Owns the schema (one definition → SQL tables and EDMX), the deterministic data generator, the query
/// engine (`$filter`, `$orderby`, paging, `$expand`, `$select`), the verbose-JSON writer and the HTTP
/// responder. It never writes to the terminal: the default logger discards everything.
public enum DemoServer {
    /// A logger that discards everything, so an in-process server never draws over the browser.
    public static let silentLogger = Logger(label: "CarDealer.DemoServer") { _ in SwiftLogNoOpLogHandler() }

    /// The one application builder, used by `cardealer serve` and by the tests.
    ///
    /// - Parameters:
    ///   - configuration: address, page size and fault injection (data options are in `store`).
    ///   - store: the opened data; see ``DataStore/open(path:people:hostile:inBackground:)``.
    ///   - onServerRunning: called with the bound port once the server listens (the real one when 0 was asked).
    public static func buildApplication(
        _ configuration: DemoServerConfiguration, store: DataStore, logger: Logger = silentLogger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> Application<ODataResponder> {
        let engine = QueryEngine(schema: .carDealer, reader: store.reader, pageSize: max(1, configuration.pageSize))
        let faults = FaultInjector(
            latencyMilliseconds: configuration.latencyMilliseconds,
            jitterMilliseconds: configuration.latencyJitterMilliseconds, failRate: configuration.failRate
        )
        return Application(
            responder: ODataResponder(engine: engine, faults: faults, readOnly: configuration.readOnly),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "CarDealer"
            ),
            onServerRunning: { channel in
                // The search index warms while the service serves (a filter soon after start need not wait on
                // the disk): a large file it did not just write.
                if !store.generated, store.people >= 10_000 {
                    Task.detached(priority: .utility) { await store.prewarmSearch() }
                }
                await onServerRunning(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
    }

    /// Opens (or generates) the data and starts the service in this process on a background task.
    ///
    /// The server ignores signals (`gracefulShutdownSignals: []`), so Ctrl-C stays with the caller; stop it
    /// with ``RunningDemoServer/stop()``. Returns once the server listens.
    public static func start(
        _ configuration: DemoServerConfiguration = DemoServerConfiguration(), logger: Logger = silentLogger
    ) async throws -> RunningDemoServer {
        let store = try DataStore.open(
            path: configuration.dataPath, people: configuration.people, hostile: configuration.hostile,
            inBackground: configuration.readsInBackground)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let application = buildApplication(configuration, store: store, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let task = Task {
            defer { continuation.finish() }
            try await application.runService(gracefulShutdownSignals: [])
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw ServiceError(
                status: 500, code: "ServerDidNotStart", message: "The demo server stopped before listening.")
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return RunningDemoServer(
            port: port, baseURL: "http://\(host):\(port)\(ODataResponder.servicePath)/", store: store, task: task
        )
    }
}
