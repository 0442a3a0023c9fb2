import Browser
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
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

    /// The CarDealer display profile compiled into the binary (from `Sources/Browser/Profile/cardealer.profile.json`).
    static var bundledCarDealerProfile: Profile? { Profile.carDealer }

    static func run(serviceRoot: String, identity: String, options: BrowserOptions, profile: Profile?) async throws {
        var root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        let credentials: Credentials
        do {
            credentials = try Credentials.load()
        } catch {
            throw SessionError(String(describing: error))
        }
        let user = CacheIdentity.user(credentials)
        let environment = CacheIdentity.environment(cacheDirectory: options.cacheDirectory)
        var location = CacheLocation(serviceIdentity: identity, user: user, environment: environment)
        let trace = try options.trace.map { try TraceLog(path: $0) }
        // The proxy comes from http_proxy / https_proxy / all_proxy / no_proxy; loopback (the demo) goes direct.
        let http: HTTPClientTransport
        do {
            http = try HTTPClientTransport(
                serviceRoot: root, timeout: options.timeout, requestTimeout: options.requestTimeout,
                credentials: credentials, maxBodyBytes: options.maxResponseMiB << 20
            )
        } catch {
            throw SessionError(error.description)
        }
        let transport: any ODataTransport = trace.map { TracingTransport(base: http, log: $0) } ?? http
        // The terminal opens at once: a cold start waiting on a slow `$metadata` says so, and `q` quits.
        let screen = try await MainActor.run { try StartupScreen.open(serviceRoot: root) }
        let cache: CacheDatabase
        let model: ServiceModel
        var startSet: String?
        do {
            if FileManager.default.fileExists(atPath: location.path),
                let warm = try? CacheDatabase(path: location.path), let bytes = try warm.metadataDocument(),
                let cached = try? EDMXParser.parse(bytes)
            {
                // A warm start draws from the cache at once; `$metadata` is refreshed in the background.
                (cache, model) = (warm, cached)
                let current = root
                Task.detached {
                    guard let fresh = try? await MetadataLoader.fetch(root: current, transport: transport) else { return }
                    try? await warm.write { try $0.storeMetadataDocument(fresh.document, at: Date()) }
                }
            } else {
                let loaded = try await MetadataLoader.load(root: root, transport: transport)
                if loaded.root != root, let set = loaded.entitySet {
                    // The URL named an entity set: open it under its service's root.
                    SessionLog.write("\(root) names the entity set \(set) of the service \(loaded.root)")
                    if identity == serviceRoot {
                        location = CacheLocation(serviceIdentity: loaded.root, user: user, environment: environment)
                    }
                    root = loaded.root
                    startSet = set
                }
                cache = try CacheDatabase(path: location.path)
                let document = loaded.document
                try await cache.write { try $0.storeMetadataDocument(document, at: Date()) }
                model = loaded.model
            }
        } catch {
            await MainActor.run { screen.close() }
            if let failure = error as? MetadataLoader.Failure { throw SessionError(failure.sentence) }
            throw error
        }
        var displayProfile = (profile ?? Profile.defaults(for: model)).completed(for: model)
        if let startSet { displayProfile.root = startSet }

        var configuration = SyncEngine.Configuration(serviceRoot: root)
        configuration.profile = PrefetchHints(hops: hops(from: displayProfile))
        configuration.prefetch = !options.noPrefetch
        configuration.maxEntitiesPerAnswer = options.maxEntities
        configuration.retry.budget = options.requestTimeout * 1.5
        let engine = SyncEngine(configuration: configuration, cache: cache, transport: transport, model: model)

        await MainActor.run {
            startUI(
                screen: screen, cache: cache, engine: engine, model: model, profile: displayProfile, serviceRoot: root,
                proxy: http.proxy, trace: trace
            )
        }
        // The main queue now runs the UI; this task just waits for the process to exit.
        while true { try? await Task.sleep(for: .seconds(3600)) }
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
        screen: StartupScreen, cache: CacheDatabase, engine: SyncEngine, model: ServiceModel, profile: Profile,
        serviceRoot: String, proxy: ProxyServer?, trace: TraceLog?
    ) {
        SessionLog.write("browsing \(serviceRoot) (cache \(cache.path ?? "in memory"))")
        if let proxy { SessionLog.write("through the proxy \(proxy)") }  // its description never holds credentials
        let environment = BrowserEnvironment(cache: cache, intents: engine, model: model, profile: profile)
        let root: any ScreenController
        if let set = environment.profile.root {
            root = EntityListController(environment: environment, entitySet: set)
        } else {
            root = EntitySetsController(environment: environment, serviceName: serviceRoot)
        }
        let terminal = screen.terminal
        let app = BrowserApp(terminal: terminal, environment: environment, root: root)
        if let trace { app.trace(to: trace) }
        screen.hand { events in
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
        app.presentIfNeeded()
    }
}

/// A start-up failure, said in a sentence.
struct SessionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
