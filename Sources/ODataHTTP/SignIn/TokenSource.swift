import Foundation

/// The bearer token a service's requests carry, kept fresh: one per transport.
///
/// * **Before expiry**: a token that ends within a fifth of its lifetime (at most 30 s) is renewed before it is
///   sent.
/// * **On a `401`**: ``renewed(after:)`` renews once — with the refresh token when there is one, else by the
///   grant again — and the transport resends the request once. Requests that fail together share one renewal,
///   and a token renewed meanwhile (by another request, or by `cardealer login` in another terminal, read from the
///   token store) is used without asking the server again.
/// * **A grant that needs the user** (the device grant, once its refresh token is refused or missing) starts the
///   device flow in the background: the prompt goes to ``setPromptHandler(_:)``'s handler (the start-up screen,
///   `cardealer login`), and requests meanwhile fail at once with it ("open URL and enter the code …"), so the
///   status line shows it and nothing waits for a person; once approved, the token is stored and used.
/// * **When the server says no for good** (`invalid_grant`, `invalid_client`, a denied or expired code) the
///   source ends: it asks the server nothing more until the token store holds a new token, and every request fails
///   with the sentence that says to run `cardealer login`. Writes wait in the outbox meanwhile (the request was
///   never sent).
///
/// Renewals run on whatever task sends the request (never the main actor), so a frame never waits for one.
public actor TokenSource {
    public nonisolated let settings: SignInSettings
    let store: TokenStore
    let endpoint: TokenEndpoint
    let now: @Sendable () -> Date
    var token: IssuedToken?
    /// Why no token can be had without the user (nil while one can).
    var ended: SignInError?
    /// The renewal under way, which every request that needs one waits for.
    var renewal: Task<IssuedToken, any Error>?
    /// ``generation`` when ``renewal`` started: its outcome is applied only if no other token came since.
    var renewalStarted = 0
    /// The device flow under way: what the user is asked to do, and the polling.
    var device: (prompt: DevicePrompt, polling: Task<IssuedToken, any Error>)?
    /// Told of a device prompt (and of nil once it is over).
    var promptHandler: (@Sendable (DevicePrompt?) -> Void)?
    /// Given the URL to open in a web browser (the code grant's sign-in).
    var browserHandler: (@Sendable (String) -> Void)?

    public init(
        settings: SignInSettings, store: TokenStore, endpoint: TokenEndpoint = TokenEndpoint(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.settings = settings
        self.store = store
        self.endpoint = endpoint
        self.now = now
        let entry = try? store.entry(for: settings)
        token = entry?.token
        storeKey = entry?.serviceRoot ?? settings.serviceRoot
    }

    /// The service root this source's tokens are stored under (a URL naming an entity set keeps its service's).
    let storeKey: String
    /// Raised whenever the token in hand changes: a renewal that began under another generation does not
    /// overwrite what came meanwhile (a `cardealer login` in another terminal).
    var generation = 0

    /// Where device prompts go (the start-up screen, `cardealer login`'s output).
    public func setPromptHandler(_ handler: (@Sendable (DevicePrompt?) -> Void)?) {
        promptHandler = handler
        if let device { handler?(device.prompt) }
    }

    /// Where the code grant's URL goes (`cardealer login` prints it, and opens it on a desktop).
    public func setBrowserHandler(_ handler: (@Sendable (String) -> Void)?) {
        browserHandler = handler
    }

    /// The stored token's user, else the client's id: whose data the cache holds. Signs in first when nothing is
    /// stored (waiting for the user when the grant needs one), so the name is known before the cache opens.
    public func identity() async throws(SignInError) -> String {
        if token == nil { _ = try await fresh(waitsForUser: true) }
        return token?.user ?? "client-" + settings.clientID
    }

    /// The `Authorization` value for the next request: the token in hand, renewed first when it is about to end.
    public func authorization() async throws(SignInError) -> String {
        if let token, !endsSoon(token) { return "Bearer " + token.accessToken }
        return "Bearer " + (try await fresh()).accessToken
    }

    /// The `Authorization` value to resend a request the service answered `401` with `rejected`: a newer token when
    /// one is in hand or stored, else one renewed now.
    public func renewed(after rejected: String) async throws(SignInError) -> String {
        if let token, "Bearer " + token.accessToken != rejected, !endsSoon(token) {
            return "Bearer " + token.accessToken
        }
        if let stored = storedToken(), "Bearer " + stored.accessToken != rejected, !endsSoon(stored) {
            take(stored)
            return "Bearer " + stored.accessToken
        }
        return "Bearer " + (try await fresh(force: true, rejecting: rejected)).accessToken
    }

    /// A new token by the grant itself (`cardealer login`), stored; the device grant waits for the user.
    public func signIn() async throws(SignInError) -> IssuedToken {
        ended = nil
        token = nil
        guard settings.grant == .code else {
            return try await fresh(force: true, storedWins: false, waitsForUser: true)
        }
        let open = browserHandler ?? { _ in }
        let issued = try await AuthorizationCodeFlow.run(settings, endpoint: endpoint, open: open)
        keep(issued)
        return issued
    }

    func endsSoon(_ token: IssuedToken) -> Bool {
        guard let expiresAt = token.expiresAt else { return false }
        return expiresAt.timeIntervalSince(now()) < max(1, margin(for: token))
    }

    /// A fifth of the token's lifetime, at most 30 s: a 5 s token is renewed 1 s early.
    func margin(for token: IssuedToken) -> TimeInterval {
        guard let expiresAt = token.expiresAt, let issued = token.issuedAt else { return 30 }
        return min(30, expiresAt.timeIntervalSince(issued) / 5)
    }

    /// The stored token, when it differs from the one in hand.
    func storedToken() -> IssuedToken? {
        guard let stored = try? store.entry(for: settings)?.token, stored.accessToken != token?.accessToken else {
            return nil
        }
        return stored
    }

    /// Takes a token another process stored: whatever ended or was under way is over.
    func take(_ stored: IssuedToken) {
        token = stored
        ended = nil
        generation += 1
        if let device {
            device.polling.cancel()
            self.device = nil
            promptHandler?(nil)
        }
    }

    /// A token that does not end soon: the stored one if newer (unless not `storedWins`: a sign-in asks anew), else
    /// from the server (one renewal at a time). A grant that needs the user starts the device flow, and waits for it
    /// when `waitsForUser`, else fails at once with its prompt.
    /// `rejecting`: the `Authorization` the service just refused (see ``renew(refreshOnly:rejecting:)``).
    func fresh(
        force: Bool = false, storedWins: Bool = true, waitsForUser: Bool = false, rejecting: String? = nil
    ) async throws(SignInError)
        -> IssuedToken
    {
        if !force, let token, !endsSoon(token) { return token }
        if storedWins, let stored = storedToken(), !endsSoon(stored) {
            take(stored)
            return stored
        }
        if let ended { throw ended }
        if device == nil {
            do {
                return try await renew(refreshOnly: settings.grant != .clientCredentials, rejecting: rejecting)
            } catch  where error.code == Self.needsUser {
                // (the device flow below)
            }
        }
        return try await deviceFlow(waits: waitsForUser)
    }

    /// The code a renewal throws when only the user can go on (the device grant with no usable refresh token).
    static let needsUser = "cardealer_needs_user"

    /// One renewal shared by every request that needs it. Its outcome is applied once, by whichever request waiting
    /// on it resumes first (not only the one that started it: another may resume before it, get a 401 with what it
    /// brought and ask again while the finished renewal is still in place), and only if no other token came since it
    /// started.
    ///
    /// `rejecting`: the `Authorization` the service just refused. A renewal that brought that very token (the one
    /// a request joined before the token was applied) is not the answer: a new one is asked, once.
    func renew(refreshOnly: Bool, rejecting: String? = nil) async throws(SignInError) -> IssuedToken {
        let task: Task<IssuedToken, any Error>
        if let renewal {
            task = renewal
        } else {
            let (settings, endpoint, previous, now) = (settings, endpoint, token, now)
            task = Task {
                try await Self.ask(settings, endpoint: endpoint, previous: previous, refreshOnly: refreshOnly, now: now)
            }
            renewal = task
            renewalStarted = generation
        }
        let started = renewalStarted
        do {
            let issued = try await task.value
            if renewal == task {
                renewal = nil
                if generation == started { keep(issued) }
            }
            if let rejecting, "Bearer " + issued.accessToken == rejecting {
                return try await renew(refreshOnly: refreshOnly)
            }
            // (what was applied: this renewal's token, or one that came since it started, newer)
            return token ?? issued
        } catch {
            let applies = renewal == task
            if applies { renewal = nil }
            let failure = error as? SignInError ?? SignInError(String(describing: error), isFinal: false)
            if applies, generation == started, failure.isFinal {
                if failure.code == Self.needsUser {
                    // (its refresh token was refused or there was none: not offered again)
                    token?.refreshToken = nil
                } else {
                    ended = failure
                }
            }
            if generation != started, let token { return token }
            throw failure
        }
    }

    /// Holds and stores a new token.
    func keep(_ issued: IssuedToken) {
        token = issued
        ended = nil
        generation += 1
        try? store.save(
            TokenStore.Entry(
                serviceRoot: storeKey, clientID: settings.clientID, tokenURL: settings.tokenURL,
                grant: settings.grant.rawValue, token: issued))
    }

    /// The device authorization under way (its one request), which every request that needs it waits for.
    var deviceStart: Task<DevicePrompt, any Error>?

    /// The device flow: started once (its prompt to the handler), then awaited when `waits`, else its prompt as the
    /// failure of the request that needed a token.
    func deviceFlow(waits: Bool) async throws(SignInError) -> IssuedToken {
        if device == nil {
            let task: Task<DevicePrompt, any Error>
            if let deviceStart {
                task = deviceStart
            } else {
                task = Task { try await self.startDevice() }
                deviceStart = task
            }
            do {
                _ = try await task.value
            } catch {
                throw error as? SignInError ?? SignInError(String(describing: error), isFinal: false)
            }
        }
        guard let device else { throw ended ?? SignInError("the sign-in ended", isFinal: false) }
        guard waits else { throw SignInError(device.prompt.sentence, isFinal: false) }
        do {
            let issued = try await device.polling.value
            // (kept here too, so that the caller finds it in hand: the flow's own end may come later)
            if token?.accessToken != issued.accessToken { keep(issued) }
            return issued
        } catch {
            throw error as? SignInError ?? SignInError("the sign-in was cancelled", isFinal: true)
        }
    }

    /// Asks for a device code and starts polling for its token, before any request waiting for it goes on; a
    /// final refusal ends the source.
    func startDevice() async throws -> DevicePrompt {
        defer { deviceStart = nil }
        let prompt: DevicePrompt
        do {
            prompt = try await endpoint.deviceAuthorization(settings, now: now)
        } catch {
            if error.isFinal { ended = error }
            throw error
        }
        let (settings, endpoint, now) = (settings, endpoint, now)
        let polling = Task { try await endpoint.pollDevice(settings, prompt, now: now) }
        device = (prompt, polling)
        promptHandler?(prompt)
        Task { await self.deviceEnded(polling) }
        return prompt
    }

    /// The device flow's end: its token kept; a denied code ends the source until the user signs in anew; an
    /// expired one leaves it to the next request that needs a token to show a new code.
    func deviceEnded(_ polling: Task<IssuedToken, any Error>) async {
        let result = await polling.result
        guard device?.polling == polling else { return }
        device = nil
        promptHandler?(nil)
        switch result {
        case .success(let issued): if token?.accessToken != issued.accessToken { keep(issued) }
        case .failure(let error):
            let failure = error as? SignInError ?? SignInError("the sign-in was cancelled", isFinal: true)
            if failure.code != "expired_token" { ended = failure }
        }
    }

    /// One renewal: the refresh token when there is one (falling back to the grant when it is refused and the
    /// grant needs no one), else the grant; a grant that needs the user throws ``needsUser``.
    static func ask(
        _ settings: SignInSettings, endpoint: TokenEndpoint, previous: IssuedToken?, refreshOnly: Bool,
        now: @escaping @Sendable () -> Date
    ) async throws(SignInError) -> IssuedToken {
        if let refresh = previous?.refreshToken {
            do {
                var issued = try await endpoint.token(
                    settings, form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], now: now,
                    withScope: false)
                if issued.refreshToken == nil { issued.refreshToken = refresh }
                if issued.user == nil { issued.user = previous?.user }
                return issued
            } catch  where !error.isFinal {
                throw error
            } catch {
                // A refused refresh token: the grant again, when it needs no one.
            }
        }
        switch settings.grant {
        case .clientCredentials where !refreshOnly:
            return try await endpoint.token(settings, form: [("grant_type", "client_credentials")], now: now)
        case .clientCredentials, .device:
            throw SignInError("a person must sign in", isFinal: true, code: needsUser)
        case .code:
            throw SignInError(
                "the code grant signs in in a web browser, which only `cardealer login` opens", isFinal: true)
        }
    }
}
