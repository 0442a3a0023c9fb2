import Foundation

/// The bearer token a service's requests carry, kept fresh: one per transport.
///
/// * **Before expiry**: a token that ends within a fifth of its lifetime (at most 30 s) is renewed before it is
///   sent.
/// * **On a `401`**: ``renewed(after:)`` renews once — with the refresh token when there is one, else by the
///   grant again — and the transport resends the request once. Requests that fail together share one renewal,
///   and a token renewed meanwhile (by another request, or by `cardealer login` in another terminal, read from the
///   token store) is used without asking the server again.
/// * **When the server says no for good** (`invalid_grant`, `invalid_client`, …) the source ends: it asks the
///   server nothing more until the token store holds a new token, and every request fails with the sentence that
///   says to run `cardealer login`. Writes wait in the outbox meanwhile (the request was never sent).
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
    /// How many tokens were asked of the server by this source (for tests and the request log's count).
    public private(set) var tokensAsked = 0

    public init(
        settings: SignInSettings, store: TokenStore, endpoint: TokenEndpoint = TokenEndpoint(),
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.settings = settings
        self.store = store
        self.endpoint = endpoint
        self.now = now
        token = try? store.entry(serviceRoot: settings.serviceRoot, clientID: settings.clientID)?.token
    }

    /// The stored token's user, else the client's id: whose data the cache holds. Signs in first when nothing is
    /// stored (client credentials need no one at the keyboard), so the name is known before the cache opens.
    public func identity() async throws(SignInError) -> String {
        if token == nil { _ = try await fresh() }
        return token?.user ?? "client-" + settings.clientID
    }

    /// The token in hand, if any (for `whoami`).
    public var current: IssuedToken? { token }

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
        if let stored = storedToken(), "Bearer " + stored.accessToken != rejected {
            token = stored
            ended = nil
            return "Bearer " + stored.accessToken
        }
        return "Bearer " + (try await fresh(force: true)).accessToken
    }

    /// A new token by the grant itself (`cardealer login`), stored.
    public func signIn() async throws(SignInError) -> IssuedToken {
        ended = nil
        token = nil
        return try await fresh(force: true, storedWins: false)
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
        guard let stored = try? store.entry(serviceRoot: settings.serviceRoot, clientID: settings.clientID)?.token,
            stored.accessToken != token?.accessToken
        else { return nil }
        return stored
    }

    /// A token that does not end soon: the stored one if newer (unless not `storedWins`: a sign-in asks anew), else
    /// from the server (one renewal at a time).
    func fresh(force: Bool = false, storedWins: Bool = true) async throws(SignInError) -> IssuedToken {
        if !force, let token, !endsSoon(token) { return token }
        if storedWins, let stored = storedToken(), !endsSoon(stored) {
            token = stored
            ended = nil
            return stored
        }
        if let ended { throw ended }
        let task: Task<IssuedToken, any Error>
        if let renewal {
            task = renewal
        } else {
            let (settings, endpoint, previous, now) = (settings, endpoint, token, now)
            task = Task { try await Self.ask(settings, endpoint: endpoint, previous: previous, now: now) }
            renewal = task
            tokensAsked += 1
        }
        do {
            let issued = try await task.value
            if renewal == task {
                renewal = nil
                token = issued
                try? store.save(
                    TokenStore.Entry(
                        serviceRoot: settings.serviceRoot, clientID: settings.clientID, tokenURL: settings.tokenURL,
                        grant: settings.grant.rawValue, token: issued))
            }
            return issued
        } catch {
            if renewal == task { renewal = nil }
            let failure = error as? SignInError ?? SignInError(String(describing: error), isFinal: false)
            if failure.isFinal { ended = failure }
            throw failure
        }
    }

    /// One renewal: the refresh token when there is one (falling back to the grant when it is refused and the
    /// grant needs no one), else the grant.
    static func ask(
        _ settings: SignInSettings, endpoint: TokenEndpoint, previous: IssuedToken?, now: @escaping @Sendable () -> Date
    ) async throws(SignInError) -> IssuedToken {
        if let refresh = previous?.refreshToken {
            do {
                var issued = try await endpoint.token(
                    settings, form: [("grant_type", "refresh_token"), ("refresh_token", refresh)], now: now)
                if issued.refreshToken == nil { issued.refreshToken = refresh }
                if issued.user == nil { issued.user = previous?.user }
                return issued
            } catch  where !error.isFinal || settings.grant != .clientCredentials {
                throw error
            } catch {
                // A refused refresh token; client credentials can simply be asked again.
            }
        }
        switch settings.grant {
        case .clientCredentials:
            return try await endpoint.token(settings, form: [("grant_type", "client_credentials")], now: now)
        }
    }
}
