import Browser
import EntityCache
import Foundation
import NIOSSL
import ODataCore
import ODataHTTP
import ScreenSeam
import Sync

/// What a browsing session is built from: a service, whose data it is, how it is shown, where its cache lives,
/// and the limits of the transport.
public struct SessionSettings: Sendable {
    /// The service root URL (or a URL naming one of its entity sets, which then opens first).
    public var serviceRoot: String
    /// What the cache is keyed by: the service root when nil; the demo passes its stable name.
    public var identity: String?
    public var credentials: Credentials
    /// Headers every request to the service carries (an API key); never logged.
    public var headers: [(name: String, value: String)] = []
    /// Query parameters every request carries (`sap-client`, `sap-language`): part of the cache's identity, since
    /// another SAP client is other data (and another language, other texts).
    public var parameters: [(name: String, value: String)] = []
    /// Client certificate, private CA, or no verification; nil for the system's defaults.
    public var tls: ClientTLS?
    /// OAuth 2.0 sign-in, in place of `credentials`' `Authorization`; nil for none.
    public var signIn: SignInSettings?
    /// Told what the user must do to sign in (the device grant's "open URL and enter the code …"), and nil once
    /// it is done: the start-up screen shows it.
    public var onSignInPrompt: (@Sendable (String?) -> Void)?
    /// Where the sign-in's tokens are kept (``TokenStore/defaultPath(environment:)`` when nil).
    public var tokenFile: String?
    /// How entity sets are shown; nil derives one from `$metadata`.
    public var profile: DisplayProfile?
    /// Annotation documents (files or URLs) merged into `$metadata` after the service's own, before the profile.
    public var annotations: [String] = []
    /// Where the cache lives: under `cacheDirectory` (nil: the XDG cache directory), or exactly at `cacheFile`.
    public var cacheDirectory: String?
    public var cacheFile: String?
    /// Seconds to connect and to wait for the next bytes; seconds one whole exchange may take.
    public var timeout: Double = HTTPClientTransport.defaultTimeout
    public var requestTimeout: Double = HTTPClientTransport.defaultRequestTimeout
    public var maxResponseBytes = HTTPClientTransport.defaultMaxBodyBytes
    public var maxEntities = PayloadDecoder.defaultMaxEntities
    /// Predict the next screens; off is the fetch-on-navigate baseline.
    public var prefetch = true
    /// Whether the annotation documents the service advertises are read (`--no-annotation-documents` says no: a
    /// baseline to compare with, or a way past a broken one).
    public var annotationDocuments = true
    /// Prefetches ask only for what the next screens show (`$select`); off, for whole entities.
    public var selectPrefetch = true
    /// Whether screens may change data (forms, the outbox); off, the browser only reads.
    public var allowsWrites = true
    /// Whether `:save` writes streams to files on this machine; off in a `serve-ssh` session, whose visitor could
    /// never fetch them and should not write on the server's disk.
    public var savesFiles = true
    /// Where the proxy variables are read.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Counts the body bytes that arrive (the start-up screen's "… arrived"); nil for none.
    public var counter: TransferCounter?
    /// Wraps the HTTP transport (the executable's `--trace`).
    public var wrapTransport: (@Sendable (any ODataTransport) -> any ODataTransport)?
    /// Last word on the fetcher's tunables (tests shorten retries).
    public var tune: (@Sendable (inout SyncEngine.Configuration) -> Void)?
    /// A service opened beside another (value help): the other's sign-in, shared rather than made again (two
    /// sources refreshing one refresh token could have a provider that rotates them revoke both), and its root
    /// taken as the root it is.
    var sharedTokens: TokenSource?
    var isReferenced = false

    public init(serviceRoot: String, identity: String? = nil, credentials: Credentials = Credentials()) {
        self.serviceRoot = serviceRoot
        self.identity = identity
        self.credentials = credentials
    }
}

/// A running browsing session: the cache, the fetcher on it, the model and the display profile. The one way a
/// session is built — by the executable and by the tests — as Hummingbird's `buildApplication` serves both.
///
/// The terminal is not part of it: the caller puts a ``BrowserApp`` on a real or headless terminal with
/// ``makeEnvironment()`` and ``makeRootController(in:)``.
public final class BrowsingSession: Sendable {
    /// The service root, with one trailing slash.
    public let root: String
    public let cache: CacheDatabase
    public let engine: SyncEngine
    public let model: ServiceModel
    public let profile: DisplayProfile
    /// The proxy requests go through, if any (its description never holds credentials).
    public let proxy: ProxyServer?
    /// The transport every request of the session goes through (the fetcher's, and `cardealer export`'s).
    public let transport: any ODataTransport
    /// Whether `$metadata` came from the cache (a warm or offline start).
    public let metadataFromCache: Bool
    /// Sentences for the log from opening: annotation documents that could not be had or read.
    public let notes: [String]
    /// What the URL it was started with named below its service root, from the entity set on (`Car(3)`, `Car/3`,
    /// `Person(1)/Trips`): the screens to open (as `--open` names them); nil when it named the root or a set alone.
    public let openedPath: String?
    /// Said on the status line all session long (TLS not verified).
    public var standingWarning: String? { insecure ? "TLS not verified (--insecure)" : nil }
    let insecure: Bool
    public let allowsWrites: Bool
    /// What it was started with: a service it names for value help is opened with the same sign-in.
    let settings: SessionSettings
    let tokens: TokenSource?

    init(
        root: String, cache: CacheDatabase, engine: SyncEngine, model: ServiceModel, profile: DisplayProfile,
        proxy: ProxyServer?, transport: any ODataTransport, metadataFromCache: Bool, notes: [String] = [],
        allowsWrites: Bool, insecure: Bool = false, settings: SessionSettings, tokens: TokenSource? = nil,
        openedPath: String? = nil
    ) {
        self.openedPath = openedPath
        self.settings = settings
        self.tokens = tokens
        self.insecure = insecure
        self.allowsWrites = allowsWrites
        self.transport = transport
        self.root = root
        self.cache = cache
        self.engine = engine
        self.model = model
        self.profile = profile
        self.proxy = proxy
        self.metadataFromCache = metadataFromCache
        self.notes = notes
    }

    /// Builds the transport, loads `$metadata` (``MetadataLoader/open(root:transport:cachePath:)``: the cached copy
    /// at once on a warm start, else the network, else a sentence), opens the cache and starts the fetcher.
    /// Throws ``SessionError`` with a sentence a person can act on.
    public static func start(_ settings: SessionSettings) async throws -> BrowsingSession {
        let root = settings.serviceRoot.hasSuffix("/") ? settings.serviceRoot : settings.serviceRoot + "/"
        // Signed in with OAuth, the cache is the token's user's (the client's, for client credentials): known before
        // the cache opens, so a first run signs in here, and a run with a stored token needs no network for it.
        var tokens: TokenSource?
        var user = CacheIdentity.user(settings.credentials)
        let tls: TLSConfiguration?
        do {
            tls = try settings.tls?.configuration()
        } catch {
            throw SessionError("Cannot use the TLS settings: \(error.description).")
        }
        if let shared = settings.sharedTokens {
            do {
                user = try await shared.identity()
            } catch {
                throw SessionError("Could not sign in: \(error.description).")
            }
            tokens = shared
        } else if let signIn = settings.signIn {
            if let problem = signIn.problem() { throw SessionError("Cannot sign in: \(problem).") }
            let store = TokenStore(
                path: settings.tokenFile ?? TokenStore.defaultPath(environment: settings.environment))
            let tokenTLS: TLSConfiguration?
            do {
                tokenTLS = try settings.tls?.forTokenEndpoint(signIn.tokenURL, serviceRoot: root)?.configuration()
            } catch {
                throw SessionError("Cannot use the TLS settings: \(error.description).")
            }
            let source = TokenSource(
                settings: signIn, store: store, endpoint: TokenEndpoint(timeout: settings.timeout, tls: tokenTLS))
            let prompt = settings.onSignInPrompt
            await source.setPromptHandler { prompt?($0.map { "To sign in, " + $0.sentence }) }
            do {
                user = try await source.identity()
            } catch {
                let mend = error.isFinal ? "; run `cardealer login \(root)` with the same sign-in options" : ""
                throw SessionError("Could not sign in to \(root): \(error.description)\(mend).")
            }
            tokens = source
        }
        let http: HTTPClientTransport
        do {
            // The proxy comes from http_proxy / https_proxy / all_proxy / no_proxy; loopback (the demo) goes direct.
            http = try HTTPClientTransport(
                serviceRoot: root, environment: settings.environment, timeout: settings.timeout,
                requestTimeout: settings.requestTimeout, credentials: settings.credentials, tokens: tokens,
                headers: settings.headers, parameters: settings.parameters, tls: tls,
                maxBodyBytes: settings.maxResponseBytes,
                counter: settings.counter
            )
        } catch {
            throw SessionError(error.description)
        }
        let transport = settings.wrapTransport?(http) ?? http
        // (another SAP client is other data, another language other texts: the cache is per client and language
        // too, named with the user, since the service identity keeps only scheme, host and path)
        let cacheUser = user + settings.parameters.map { "+\($0.name)=\($0.value)" }.joined()
        let opened: MetadataLoader.Opened
        do {
            // (the root as written: a trailing slash says it is a service root, not an entity set's URL)
            opened = try await MetadataLoader.open(
                root: settings.serviceRoot, transport: transport, annotationSources: settings.annotations,
                exactRoot: settings.isReferenced, serviceDocument: settings.annotationDocuments
            ) { serviceRoot in
                if let file = settings.cacheFile { return file }
                // A URL that named an entity set is cached as its service, unless an identity was given.
                let identity = settings.identity ?? serviceRoot
                return CacheIdentity.location(
                    identity: identity, user: cacheUser, cacheDirectory: settings.cacheDirectory
                )
                .path
            }
        } catch let failure as MetadataLoader.Failure {
            throw SessionError(failure.sentence)
        } catch {
            throw SessionError("Could not open the cache: \(error)")
        }
        // (a URL that named an entity set: writes fetch their CSRF token at the service root, not by reading the set)
        if opened.root != root { http.serviceRootFound(opened.root) }
        var profile = (settings.profile ?? DisplayProfile.defaults(for: opened.model)).completed(for: opened.model)
        if let set = opened.entitySet { profile.root = set }

        var configuration = SyncEngine.Configuration(serviceRoot: opened.root)
        configuration.profile = PrefetchHints(
            drillPaths: profile.drillPaths, shown: profile.shownFields, labels: profile.labelFields)
        configuration.prefetch = settings.prefetch
        configuration.selectPrefetch = settings.selectPrefetch
        configuration.maxEntitiesPerAnswer = settings.maxEntities
        configuration.retry.budget = settings.requestTimeout * 1.5
        settings.tune?(&configuration)
        let engine = SyncEngine(
            configuration: configuration, cache: opened.cache, transport: transport, model: opened.model)
        return BrowsingSession(
            root: opened.root, cache: opened.cache, engine: engine, model: opened.model, profile: profile,
            proxy: http.proxy, transport: transport, metadataFromCache: opened.fromCache, notes: opened.notes,
            allowsWrites: settings.allowsWrites, insecure: settings.tls?.insecure == true, settings: settings,
            tokens: tokens, openedPath: opened.path.flatMap { $0 == opened.entitySet ? nil : $0 }
        )
    }

    /// What the screens of this session share.
    @MainActor
    public func makeEnvironment() -> BrowserEnvironment {
        let environment = BrowserEnvironment(
            cache: cache, intents: engine, writes: allowsWrites ? engine : nil, model: model, profile: profile)
        environment.standingWarning = standingWarning
        environment.serviceRoot = root
        environment.downloads = settings.savesFiles ? engine : nil
        var settings = settings
        settings.sharedTokens = tokens
        environment.openService = { [settings] root in try await Self.openForValueHelp(root, like: settings) }
        return environment
    }

    /// The service at `root`, which a property of this one names for its values (`Common.ValueListReferences`),
    /// opened for reading with this session's sign-in (the reference was checked to be on this service's origin):
    /// its own cache beside this one's, no prefetching (a value help is read as it is shown), no writes.
    static func openForValueHelp(_ root: String, like settings: SessionSettings) async throws -> ReferencedService {
        var derived = settings
        derived.serviceRoot = root
        derived.identity = nil
        derived.profile = nil
        derived.annotations = []
        if let file = settings.cacheFile {
            derived.cacheDirectory = (file as NSString).deletingLastPathComponent
            derived.cacheFile = nil
        }
        derived.prefetch = false
        derived.allowsWrites = false
        derived.onSignInPrompt = nil
        derived.isReferenced = true
        let session = try await start(derived)
        // (a root whose `$metadata` could not be had may have been taken for an entity set of its parent's service)
        let wanted = root.hasSuffix("/") ? root : root + "/"
        guard session.root == wanted else {
            throw SessionError("there is no service at \(root)")
        }
        return ReferencedService(
            root: session.root, cache: session.cache, intents: session.engine, model: session.model,
            profile: session.profile)
    }

    /// The first screen: the profile's root set, else the list of entity sets.
    @MainActor
    public func makeRootController(in environment: BrowserEnvironment) -> any ScreenController {
        if let set = environment.profile.root { return EntityListController(environment: environment, entitySet: set) }
        return EntitySetsController(environment: environment, serviceName: root)
    }
}

/// A session that could not start, said in a sentence.
public struct SessionError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
