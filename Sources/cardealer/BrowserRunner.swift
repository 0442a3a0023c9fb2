import ArgumentParser
import Browser
import ODataHTTP
import Session
import Terminal

/// One browsing session in this terminal: the start-up screen while the session is built
/// (``BrowsingSession/start(_:)``, shared with the tests), then the browser until the user quits.
///
/// A warm start reads the `$metadata` the cache holds, so it draws a full frame before any request
/// completes; only a cold start waits for the network, with the start-up screen saying so.
enum BrowserRunner {
    /// Settings from the command line's browsing options, with the credentials of the environment.
    static func settings(
        serviceRoot: String, identity: String?, options: BrowserOptions, profile: DisplayProfile?,
        config: ConfigFile = ConfigFile()
    ) throws -> SessionSettings {
        let credentials: Credentials
        do {
            credentials = try Credentials.load()
        } catch {
            throw SessionError(String(describing: error))
        }
        var settings = SessionSettings(serviceRoot: serviceRoot, identity: identity, credentials: credentials)
        settings.profile = profile
        // The config's annotation documents are its service's.
        let configService = config.service.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        let isConfigService = configService == (serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/")
        settings.annotations = (isConfigService ? config.annotations ?? [] : []) + options.annotations
        settings.cacheDirectory = options.cacheDirectory
        settings.timeout = options.timeout
        settings.requestTimeout = options.requestTimeout
        settings.maxResponseBytes = options.maxResponseMiB << 20
        settings.maxEntities = options.maxEntities
        settings.prefetch = !options.noPrefetch && config.prefetch != false
        settings.selectPrefetch = !options.noSelect
        settings.annotationDocuments = !options.noAnnotationDocuments
        let (pageSize, batchSize) = (config.pageSize, config.batchSize)
        if pageSize != nil || batchSize != nil {
            settings.tune = {
                if let pageSize { $0.pageSize = pageSize }
                if let batchSize { $0.writeBatchSize = batchSize }
            }
        }
        return settings
    }

    /// Runs the session until the user quits (returns) or a signal ends it (throws its exit status).
    /// Runs the session with the options and config file's choices (options win).
    static func run(_ settings: SessionSettings, options: BrowserOptions, config: ConfigFile) async throws {
        let keymap = await MainActor.run { config.keymap }
        try await run(
            settings, trace: options.trace, open: options.open, mouse: !options.noMouse && config.mouse != false,
            theme: options.theme ?? config.theme ?? .dark, keymap: keymap)
    }

    static func run(
        _ settings: SessionSettings, trace tracePath: String?, open: String? = nil, mouse: Bool = true,
        theme: Theme = .dark, keymap: Keymap = Keymap()
    ) async throws {
        var settings = settings
        let trace = try tracePath.map { try TraceLog(path: $0) }
        if let trace { settings.wrapTransport = { TracingTransport(base: $0, log: trace) } }
        // The terminal opens at once: a cold start waiting on a slow `$metadata` says so, and how much has
        // arrived, and `q` quits.
        let counter = TransferCounter()
        settings.counter = counter
        let screen = try await MainActor.run {
            try StartupScreen.open(serviceRoot: settings.serviceRoot, counter: counter, mouse: mouse, theme: theme)
        }
        settings.onSignInPrompt = { [weak screen] text in Task { @MainActor in screen?.notice = text } }
        let session: BrowsingSession
        do {
            session = try await BrowsingSession.start(settings)
        } catch {
            await MainActor.run { screen.close() }
            throw error
        }
        var link: DeepLink?
        // (a URL below the service root naming an entity or a path on from it opens those screens, as --open would)
        if let open = open ?? session.openedPath {
            switch DeepLink.resolve(open, model: session.model, profile: session.profile) {
            case .success(let resolved): link = resolved
            case .failure(let error):
                await MainActor.run { screen.close() }
                throw SessionError("--open \(open): \(error)")
            }
        }
        if session.root != settings.serviceRoot.appendingSlash, let set = session.profile.root {
            AppLog.write("\(settings.serviceRoot) names the entity set \(set) of the service \(session.root)")
        }
        let opening = link
        let status = await withCheckedContinuation { (ended: CheckedContinuation<Int32, Never>) in
            Task { @MainActor in
                browse(session, on: screen, trace: trace, link: opening, keymap: keymap, counter: counter) {
                    ended.resume(returning: $0)
                }
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Hands the terminal to the browser; `end` gets the exit status once, after the terminal is restored.
    @MainActor
    static func browse(
        _ session: BrowsingSession, on screen: StartupScreen, trace: TraceLog?, link: DeepLink? = nil,
        keymap: Keymap = Keymap(), counter: TransferCounter? = nil, end: @escaping (Int32) -> Void
    ) {
        AppLog.write("browsing \(session.root) (cache \(session.cache.path ?? "in memory"))")
        // (their URLs and reasons come from the service: sanitised and cut like anything else it sends)
        for note in session.notes {
            AppLog.write(String(TextSanitizer.sanitize(note).prefix(400)), level: .warning)
        }
        if let proxy = session.proxy { AppLog.write("through the proxy \(proxy)") }
        let environment = session.makeEnvironment()
        if let counter { environment.bytesArrived = { counter.total } }
        let terminal = screen.terminal
        let app = BrowserApp(
            terminal: terminal, environment: environment, root: session.makeRootController(in: environment))
        if let trace { app.trace(to: trace) }
        if let link { app.open(link) }
        app.bind(keymap)
        var ended = false
        func finish(_ status: Int32, _ reason: String) {
            guard !ended else { return }
            ended = true
            AppLog.write(reason)
            app.shutdown()
            terminal.restore()
            end(status)
        }
        screen.hand { events in
            guard !ended else { return }
            for event in events {
                if case .signal(let signal) = event {
                    return finish(signal.exitStatus, "quitting on signal \(signal.rawValue)")
                }
            }
            if !app.handle(events) { finish(0, "quit") }
        }
        app.presentIfNeeded()
    }
}

extension String {
    var appendingSlash: String { hasSuffix("/") ? self : self + "/" }
}
