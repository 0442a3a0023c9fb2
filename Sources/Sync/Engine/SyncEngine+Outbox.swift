import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// Writes: recorded in the cache with their optimistic change (``CacheWriteSession/enqueueUpdate(_:changes:requestID:at:)``),
/// then sent in the order made per entity, several entities at once, each under its request id.
///
/// * **Exactly once**: every attempt of a write carries the same `Repeatability-Request-ID` and the
///   `Repeatability-First-Sent` of its first attempt (OData 4.01), so a service that honours them applies a
///   write once however often it arrives. An update is a `MERGE` of the changed fields with `If-Match`, which a
///   service that ignores repeatability also applies at most once: a replay of an applied one meets a new ETag.
/// * **Failures are classified**: no answer, 408, 429 (after its `Retry-After`) and 5xx are tried again with
///   backoff while that entity's later writes wait; 412 fetches the service's copy and waits for the user (a
///   conflict); any other 4xx rolls the change back and waits for the user with the service's message.
/// * **The verb**: `MERGE`, as OData v2 defines it. A service (or a proxy in front of it) that refuses the verb
///   (405, 501) gets every later update as `POST` with `X-HTTP-Method: MERGE`.
extension SyncEngine: WriteIntents {
    public nonisolated func save(_ change: EntityChange) {
        intents.yield(.save(change))
    }

    public nonisolated func delete(_ deletion: EntityDeletion) {
        intents.yield(.delete(deletion))
    }

    public nonisolated func resolve(outboxEntry id: Int64, _ resolution: OutboxResolution) {
        intents.yield(.resolve(id, resolution))
    }

    /// Records a change and starts sending it.
    func record(_ change: EntityChange) async {
        let date = clock.now()
        let requestID = UUID().uuidString.lowercased()
        do {
            try await cache.write {
                try $0.enqueueUpdate(change.key, changes: change.changes, requestID: requestID, at: date)
            }
        } catch {
            note(failure: String(describing: error))
            return
        }
        flushOutbox()
    }

    /// Records a delete (the entity leaves the screen it was deleted from at once) and starts sending it.
    func record(_ deletion: EntityDeletion) async {
        let date = clock.now()
        let requestID = UUID().uuidString.lowercased()
        var shownIn: DeletedFrom?
        switch deletion.shownIn {
        case .list(let request)?: shownIn = DeletedFrom(list: request.key)
        case .related(let parent, let path)?:
            shownIn = DeletedFrom(parent: parent, navigation: path.first, member: path.count > 1 ? deletion.link : nil)
        case .entity?, nil: shownIn = nil
        }
        let from = shownIn
        do {
            try await cache.write {
                try $0.enqueueDelete(deletion.key, shownIn: from, requestID: requestID, at: date)
            }
        } catch {
            note(failure: String(describing: error))
            return
        }
        flushOutbox()
    }

    func apply(_ resolution: OutboxResolution, to id: Int64) async {
        try? await cache.write { session in
            switch resolution {
            case .retry: try session.retryFailedOutbox(id)
            case .discard: try session.discardOutbox(id)
            case .keepMine: try session.keepMine(id)
            case .takeTheirs: try session.takeTheirs(id)
            case .resend(let changes): try session.resendOutbox(id, changes: changes)
            }
        }
        flushOutbox()
    }

    /// Makes every queued write due at once and sends them (the service is back).
    func sendQueuedWritesNow() async {
        try? await cache.write { try $0.makeQueuedWritesDue() }
        flushOutbox()
    }

    /// Sends what is due, unless a flush is already under way (it looks again when it ends).
    public func flushOutbox() {
        guard outboxTask == nil else {
            outboxAgain = true
            return
        }
        outboxTask = Task { await self.drainOutbox() }
    }

    /// Sends every due write, up to `maxConcurrentWrites` at once, until none is due; then waits for the next retry.
    func drainOutbox() async {
        repeat {
            outboxAgain = false
            while !Task.isCancelled {
                let now = clock.now()
                let limit = configuration.maxConcurrentWrites
                guard let due = try? await cache.write({ try $0.dueOutboxEntries(at: now, limit: limit) }), !due.isEmpty
                else { break }
                await withTaskGroup(of: Void.self) { group in
                    for entry in due { group.addTask { await self.send(entry) } }
                }
            }
        } while outboxAgain && !Task.isCancelled
        outboxTask = nil
        scheduleOutboxRetry()
    }

    /// Wakes the outbox when the earliest write waiting for a retry is due.
    func scheduleOutboxRetry() {
        outboxTimer?.cancel()
        guard let due = try? cache.write({ try $0.nextOutboxAttempt() }) else { return }
        let wait = max(0, due.timeIntervalSince(clock.now()))
        outboxTimer = Task {
            try? await clock.sleep(seconds: wait)
            guard !Task.isCancelled else { return }
            self.flushOutbox()
        }
    }

    /// One attempt of one write, and what its answer means.
    func send(_ entry: OutboxEntry) async {
        let now = clock.now()
        do {
            try await cache.write { try $0.markOutboxSending(entry.id, at: now) }
        } catch { return }
        let attempt = entry.attempts + 1
        let url = builder.url(ResourcePath(entry.entityKey), QueryOptions())
        var request = TransportRequest(
            method: tunnelMerge ? .post : .merge, url: url,
            headers: [
                "Repeatability-Request-ID": entry.requestID,
                "Repeatability-First-Sent": Self.httpDate(entry.firstSent ?? now),
            ]
        )
        switch entry.kind {
        case .update:
            request.headers["Content-Type"] = "application/json"
            request.body = RequestBodyEncoder.object(entry.changes, types: propertyTypes(of: entry.entitySet))
            if tunnelMerge { request.headers["X-HTTP-Method"] = "MERGE" }
        case .delete:
            request.method = .delete
        }
        if let etag = entry.baseEtag { request.headers["If-Match"] = etag }
        let started = clock.now()
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch is CancellationError {
            return
        } catch let error as ODataError {
            logWrite(request, status: nil, bytes: 0, started: started, attempts: attempt, error: error.description)
            if error.kind == .refused {
                try? await cache.write { try $0.failOutbox(entry.id, error: error.description) }
            } else {
                // No answer: the service is away (the status line says so, the probe watches for its return).
                wentOffline(error.description, at: clock.now())
                startProbe()
                await retryLater(entry, attempt: attempt, error: error.description, after: nil)
            }
            return
        } catch {
            await retryLater(entry, attempt: attempt, error: String(describing: error), after: nil)
            return
        }
        if !isOnline { cameOnline() }
        let failure =
            (200..<300).contains(response.status)
            ? nil
            : ODataError.fromResponse(
                status: response.status, url: url, contentType: response.headers["content-type"], body: response.body
            ).description
        logWrite(
            request, status: response.status, bytes: response.body.count, started: started, attempts: attempt,
            error: failure)
        switch response.status {
        case 200..<300:
            let copy = response.status == 200 ? decodedCopy(response.body) : nil
            let settled = clock.now()
            try? await cache.write { try $0.settleOutbox(entry.id, etag: response.etag, serverCopy: copy, at: settled) }
        case 404 where entry.kind == .delete:
            // Already gone: what the delete wanted.
            try? await cache.write { try $0.settleOutbox(entry.id, etag: nil) }
        case 405 where !tunnelMerge && entry.kind == .update, 501 where !tunnelMerge && entry.kind == .update:
            // The verb itself was refused: tunnel it from now on, and send this one again at once.
            tunnelMerge = true
            try? await cache.write { try $0.retryOutboxLater(entry.id, error: failure ?? "", due: now) }
        case 412:
            await conflict(entry, error: failure ?? "the entity changed on the service")
        case 408, 429, 500...599:
            await retryLater(entry, attempt: attempt, error: failure ?? "", after: Self.retryAfter(response))
        default:
            try? await cache.write { try $0.failOutbox(entry.id, error: failure ?? "refused") }
        }
    }

    /// The service's copy after a 412, kept beside mine for the user to choose.
    func conflict(_ entry: OutboxEntry, error: String) async {
        let url = builder.url(ResourcePath(entry.entityKey), QueryOptions())
        guard let response = try? await transport.send(TransportRequest(url: url)), response.status == 200,
            let theirs = decodedCopy(response.body)
        else {
            await retryLater(entry, attempt: entry.attempts + 1, error: error, after: nil)
            return
        }
        let etag = response.etag ?? etagInBody(response.body)
        try? await cache.write { try $0.conflictOutbox(entry.id, theirs: theirs, theirsEtag: etag, error: error) }
    }

    func retryLater(_ entry: OutboxEntry, attempt: Int, error: String, after serverWait: Double?) async {
        let wait = serverWait ?? configuration.writeRetry.delay(afterAttempt: attempt, random: random())
        let due = clock.now().addingTimeInterval(wait)
        try? await cache.write { try $0.retryOutboxLater(entry.id, error: error, due: due) }
    }

    /// The properties of an entity answer (`{"d":{…}}`), typed by the model.
    func decodedCopy(_ body: [UInt8]) -> [ODataProperty]? {
        guard !body.isEmpty, case .entity(let entity)? = try? runner.decoder.decode(body) else { return nil }
        return entity.properties
    }

    func etagInBody(_ body: [UInt8]) -> String? {
        guard case .entity(let entity)? = try? runner.decoder.decode(body) else { return nil }
        return entity.metadata.etag
    }

    /// Edm types of a set's properties, for the request body.
    func propertyTypes(of entitySet: String) -> [String: EdmPrimitiveType] {
        guard let model, let set = model.entitySet(named: entitySet), let type = model.entityTypes[set.entityType]
        else {
            return [:]
        }
        var types: [String: EdmPrimitiveType] = [:]
        for property in model.properties(of: type) {
            if case .primitive(let primitive) = property.type { types[property.name] = primitive }
        }
        return types
    }

    func note(failure: String) {
        lastError = (failure, clock.now())
        publishStatus()
    }

    func logWrite(_ request: TransportRequest, status: Int?, bytes: Int, started: Date, attempts: Int, error: String?) {
        let entry = RequestLogEntry(
            url: request.url, status: status, bytes: bytes, duration: clock.now().timeIntervalSince(started),
            outcome: error == nil ? .written : .failed, startedAt: started, attempts: attempts, error: error,
            method: request.headers["X-HTTP-Method"].map { "POST (\($0))" } ?? request.method.rawValue
        )
        _ = try? cache.write { try $0.appendRequestLog(entry) }
    }

    /// `Retry-After` in seconds (a number, or an HTTP date), capped at 5 minutes.
    static func retryAfter(_ response: TransportResponse, now: Date = Date()) -> Double? {
        guard let value = response.headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value) { return min(max(seconds, 0), 300) }
        return HTTPDate.parse(value).map { min(max($0.timeIntervalSince(now), 0), 300) }
    }

    /// An HTTP date (RFC 9110 IMF-fixdate).
    static func httpDate(_ date: Date) -> String { HTTPDate.format(date) }
}
