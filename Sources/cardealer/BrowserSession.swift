import Browser
import EntityCache
import Foundation
import ODataCore
import Sync
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// Wires one browsing session: cache, fetcher, `$metadata`, terminal and screens.
///
/// Start-up reads what the cache already holds first (the `$metadata` document,
/// rows of the first screen), so a warm start draws a full frame before any
/// request completes. Only a cold start waits for `$metadata`.
enum BrowserSession {
    typealias Profile = Browser.DisplayProfile

    /// The CarDealer display profile compiled into the binary (the file in `Assets/` is its source).
    static var bundledCarDealerProfile: Profile? { Profile.carDealer }

    static func run(serviceRoot: String, identity: String, options: BrowserOptions, profile: Profile?) async throws {
        let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        let credentials: Credentials
        do {
            credentials = try Credentials.load()
        } catch {
            throw SessionError(String(describing: error))
        }
        let user = credentials.user ?? "anonymous"
        var environment = ProcessInfo.processInfo.environment
        if let directory = options.cacheDirectory { environment["XDG_CACHE_HOME"] = directory }
        let location = CacheLocation(serviceIdentity: identity, user: user, environment: environment)
        let cache = try CacheDatabase(path: location.path)
        let trace = try options.trace.map { try TraceLog(path: $0) }
        // The proxy comes from http_proxy / https_proxy / all_proxy / no_proxy; loopback (the demo) goes direct.
        let http: HTTPClientTransport
        do {
            http = try HTTPClientTransport(serviceRoot: root, credentials: credentials)
        } catch {
            throw SessionError(error.description)
        }
        let transport: any ODataTransport = trace.map { TracingTransport(base: http, log: $0) } ?? http
        let model = try await loadModel(root: root, cache: cache, transport: transport)
        let displayProfile = (profile ?? Profile.defaults(for: model)).completed(for: model)

        var configuration = SyncEngine.Configuration(serviceRoot: root)
        configuration.profile = PrefetchHints(hops: hops(from: displayProfile))
        configuration.prefetch = !options.noPrefetch
        let engine = SyncEngine(configuration: configuration, cache: cache, transport: transport, model: model)

        try await MainActor.run {
            try startUI(
                cache: cache, engine: engine, model: model, profile: displayProfile, serviceRoot: root,
                proxy: http.proxy, trace: trace
            )
        }
        // The main queue now runs the UI; this task just waits for the process to exit.
        while true { try? await Task.sleep(for: .seconds(3600)) }
    }

    /// `$metadata` from the cache when it is there (refreshed in the background), else from the service.
    static func loadModel(root: String, cache: CacheDatabase, transport: any ODataTransport) async throws -> ServiceModel {
        if let bytes = try cache.metadataDocument(), let model = try? EDMXParser.parse(bytes) {
            Task.detached { _ = try? await fetchMetadata(root: root, cache: cache, transport: transport) }
            return model
        }
        return try await fetchMetadata(root: root, cache: cache, transport: transport)
    }

    static func fetchMetadata(root: String, cache: CacheDatabase, transport: any ODataTransport) async throws -> ServiceModel {
        let url = ODataURLBuilder(serviceRoot: root).metadataURL
        let response: TransportResponse
        do {
            response = try await transport.get(TransportRequest(url: url, acceptsXML: true))
        } catch {
            throw SessionError("Could not load the service's $metadata. \(error)")
        }
        guard response.status == 200 else {
            let error = ODataError.fromResponse(status: response.status, url: url, contentType: response.headers["content-type"], body: response.body)
            throw SessionError(error.description)
        }
        let model: ServiceModel
        do {
            model = try EDMXParser.parse(response.body)
        } catch {
            throw SessionError("\(url): \(error.description)")
        }
        let body = response.body
        try await cache.write { try $0.storeMetadataDocument(body, at: Date()) }
        return model
    }

    /// Link entities to hop through, from the profile's drill paths (`["PersonCar", "Car"]`: PersonCar hops
    /// to Car). A link set drilled through towards different targets (PersonCar → Car from a person,
    /// → Person from a car) is left to the fetcher's rule: hop along the navigation that does not lead back.
    static func hops(from profile: Profile) -> [String: String] {
        var targets: [String: Set<String>] = [:]
        for set in profile.sets.values {
            guard let path = set.drill?.path, path.count >= 2 else { continue }
            targets[path[0], default: []].insert(path[1])
        }
        return targets.compactMapValues { $0.count == 1 ? $0.first : nil }
    }

    @MainActor
    static func startUI(
        cache: CacheDatabase, engine: SyncEngine, model: ServiceModel, profile: Profile, serviceRoot: String,
        proxy: ProxyServer?, trace: TraceLog?
    ) throws {
        let terminal: CursesTerminal
        do {
            terminal = try CursesTerminal()
        } catch {
            throw SessionError("Cannot open the terminal: \(error)")
        }
        // From here on the screen is ncurses'; anything else goes to the log.
        SessionLog.captureStandardError()
        SessionLog.write("browsing \(serviceRoot) (cache \(cache.path ?? "in memory"))")
        if let proxy { SessionLog.write("through the proxy \(proxy)") }  // its description never holds credentials
        let environment = BrowserEnvironment(cache: cache, intents: engine, model: model, profile: profile)
        let root: any ScreenController
        if let set = environment.profile.root {
            root = EntityListController(environment: environment, entitySet: set)
        } else {
            root = EntitySetsController(environment: environment, serviceName: serviceRoot)
        }
        let app = BrowserApp(terminal: terminal, environment: environment, root: root)
        if let trace { app.trace(to: trace) }
        app.presentIfNeeded()
        terminal.start { events in
            for event in events {
                if case .signal(let signal) = event {
                    SessionLog.write("quitting on signal \(signal.rawValue)")
                    app.shutdown()
                    terminal.restore()
                    exit(signal.exitStatus)
                }
            }
            if !app.handle(events) {
                SessionLog.write("quit")
                app.shutdown()
                terminal.restore()
                exit(0)
            }
        }
    }
}

/// A start-up failure, said in a sentence.
struct SessionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
