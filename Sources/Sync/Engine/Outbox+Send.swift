import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// Writes: recorded in the cache with their optimistic change (``CacheWriter/enqueueUpdate(_:changes:baseEtag:requestID:at:)``),
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
extension Outbox {
    /// One attempt of one write, and what its answer means.
    func send(_ entry: OutboxEntry) async {
        if let (draft, actions) = draftEdit(of: entry) {
            return await sendThroughDraft(entry, draft: draft, actions: actions)
        }
        if case .create(_, _, let draft?) = entry.write {
            return await resumeDraft(entry, draft: draft)
        }
        if case .create = entry.write, let new = model?.draftActions(ofSet: entry.entitySet)?.new {
            return await createThroughNewAction(entry, action: new)
        }
        guard let request = await prepared(entry) else { return }
        await exchangeAlone(entry, request: request)
    }

    /// The request that sends `entry`, marked as on its way; nil when it is not to be sent (settled otherwise).
    /// `reference` names the entity a new link entity binds, when that entity is made in the same changeset.
    /// `markedAt`: when the caller marked it as on its way (a batch marks all of its writes at once); its first
    /// attempt is sent as first sent then.
    func prepared(_ entry: OutboxEntry, reference: String? = nil, markedAt: Date? = nil) async -> TransportRequest? {
        let now = markedAt ?? clock.now()
        if entry.kind.runsOnce, entry.state == .sending, !learned.honoursRepeatability {
            // It was on its way when the browser stopped: as a lost answer, it waits for the user.
            await waitForUser(entry, because: "The browser stopped while this was on its way")
            return nil
        }
        if markedAt == nil {
            do {
                try await cache.write { try $0.markOutboxSending(entry.id, at: now) }
            } catch { return nil }
        }
        let attempt = WriteRequestBuilder.Attempt(
            requestID: entry.requestID, firstSent: entry.firstSent ?? now, etag: entry.baseEtag)
        switch entry.write {
        case .incomplete(let kind):
            await record {
                try $0.failOutbox(
                    entry.id, error: "This \(kind.rawValue) is recorded without what it needs to be sent: x drops it.")
            }
            return nil
        case .update:
            return writes.update(
                entry.entityKey, changes: entry.changes, types: propertyTypes(of: entry.entitySet), attempt: attempt)
        case .delete:
            return writes.delete(entry.entityKey, attempt: attempt)
        case .unlink(let parent, let navigation):
            return writes.unlink(parent: parent, navigation: navigation, child: entry.entityKey, attempt: attempt)
        case .create(let shownIn, let binding, _):
            return createRequest(entry, shownIn: shownIn, binding: binding, attempt: attempt, reference: reference)
        case .action(let name):
            let key = entry.entityKey
            let type = key.isCall ? nil : model?.entityType(ofSet: entry.entitySet)
            // (an action on a list or on the service is queued under its call's key: it names no entity)
            let found =
                key.isCall
                ? model?.operation(queuedAs: name, on: key.callSet)
                : model?.operation(named: name, boundTo: type?.qualifiedName)
            guard let model, let operation = found else {
                await record {
                    try $0.failOutbox(entry.id, error: "The service no longer offers \(name).")
                }
                return nil
            }
            do {
                return try OperationRequestBuilder(urls: builder).request(
                    operation, arguments: entry.changes, on: key.isCall ? nil : key,
                    collection: key.callSet.map { ResourcePath(entitySet: $0) },
                    keyNames: type.map(model.keyProperties(of:)) ?? [], attempt: attempt)
            } catch {
                let sentence = error.description
                await record { try $0.failOutbox(entry.id, error: sentence) }
                return nil
            }
        }
    }

    /// The relations an action's `Common.SideEffects` names, as paths of navigations (each with the one back) from
    /// the entity it ran on.
    func sideEffectPaths(of entry: OutboxEntry) -> [[NavigationHop]] {
        guard case .action(let name) = entry.write, let model else { return [] }
        let type = model.entityType(ofSet: entry.entitySet)
        let paths = model.operation(named: name, boundTo: type?.qualifiedName)?.sideEffects?.navigationPaths ?? []
        return paths.map { path in
            var set: String? = entry.entitySet
            return path.map { navigation in
                let partner = set.flatMap { model.partnerNavigation(navigation, fromSet: $0) }
                set = set.flatMap { model.resolveNavigation(navigation, fromSet: $0)?.targetSet }
                return NavigationHop(navigation, to: set, partner: partner)
            }
        }
    }

    /// The entity sets an action's side effects name by absolute path (`/Container/Set`, or on from it through
    /// navigations) that the service has.
    func sideEffectSets(of entry: OutboxEntry) -> [String] {
        guard case .action(let name) = entry.write, let model else { return [] }
        let operation =
            entry.entityKey.isCall
            ? model.operation(queuedAs: name, on: entry.entityKey.callSet)
            : model.operation(named: name, boundTo: model.entityType(ofSet: entry.entitySet)?.qualifiedName)
        var sets: [String] = []
        for target in operation?.sideEffects?.absoluteTargets(known: { model.entitySet(named: $0) != nil }) ?? [] {
            // (a path on from the set: the set its navigations reach)
            var set: String? = target.set
            for navigation in target.navigation {
                set = set.flatMap { model.resolveNavigation(navigation, fromSet: $0)?.targetSet }
            }
            if let set, !sets.contains(set) { sets.append(set) }
        }
        return sets
    }

    /// Marks the lists of `sets` not fresh (in a transaction of their own: a failure must not undo the action's
    /// settling) and has the screens that show them read them again.
    func markListsOf(_ sets: [String], at settled: Date) async {
        for set in sets {
            if let marked = await recording({ try $0.markListsStale(ofSet: set, at: settled) }), !marked.isEmpty {
                await engine?.listsChanged(ofSet: set, marked)
            }
        }
    }

    /// Write requests for this service, as learned so far.
    var writes: WriteRequestBuilder { WriteRequestBuilder(urls: builder, tunnelsMerge: learned.tunnelsMerge) }

    /// What the answer to one write (or the failure to get one) means for it: settled, tried again, refused, or in
    /// conflict. `inBatch`: it was one request of a `$batch`, and `outcome` its own answer there. `tellsEngine`: a
    /// write that got no answer tells the engine the service is away (false: the caller tells it once, after every
    /// write that went with this one is queued again). Returns the sentence to tell it, when there is one.
    @discardableResult
    func settle(
        _ entry: OutboxEntry, request: TransportRequest, outcome: Result<TransportResponse, any Error>,
        started: Date, inBatch: Bool = false, answeredAt: Date? = nil, tellsEngine: Bool = true
    ) async -> ODataError? {
        let now = clock.now()
        let attempt = entry.attempts + 1
        let response: TransportResponse
        switch outcome {
        case .success(let answer):
            response = answer
        case .failure(is CancellationError):
            return nil
        case .failure(let error as ODataError):
            logWrite(
                request, status: nil, bytes: 0, started: started, attempts: attempt, error: error.description,
                inBatch: inBatch)
            let verdict = WriteVerdict.of(entry.kind, failure: error, known: known)
            switch verdict {
            case .refused:
                await record { try $0.failOutbox(entry.id, error: error.description) }
            case .unknownOutcome:
                // Sent again blindly to a service that ignores request ids, it could be made twice.
                await waitForUser(entry, because: "No answer came (\(error.description))")
            default:
                await retryLater(entry, attempt: attempt, error: error.description, after: nil)
            }
            guard verdict != .refused else { return nil }
            // No answer: the service is away (the status line says so, the probe watches for its return). Told
            // after the write is queued again, not while it is still on the wire: a probe that starts at once
            // makes queued writes due, and would miss one still marked as sending, then stop.
            if tellsEngine { await engine?.writeGotNoAnswer(error) }
            return error
        case .failure(let error):
            await retryLater(entry, attempt: attempt, error: String(describing: error), after: nil)
            return nil
        }
        let failure = await noteAnswer(
            response, to: request, attempts: attempt, started: started, inBatch: inBatch, at: answeredAt ?? clock.now())
        let retryAfter = Self.retryAfter(response, now: clock.now())
        switch WriteVerdict.of(entry.kind, status: response.status, retryAfter: retryAfter, known: known) {
        case .settled where entry.kind == .create:
            // (a set edited through drafts makes it a draft: activated first)
            if let made = await activatedIfDraft(entry, response) { await settleCreate(entry, response: made) }
        case .settled where entry.kind == .action && entry.entityKey.isCall:
            // On a list or on the service: no entity to read again; a list's set is not fresh any more.
            let settled = clock.now()
            await record { try $0.settleOutbox(entry.id, etag: nil, at: settled) }
            // (in a transaction of its own: a failure here must not undo the settling, or it would go again)
            // (and the sets its side effects name: an action on the service has no list of its own)
            let sets = entry.entityKey.callSet.map { [$0] } ?? []
            await markListsOf(sets + sideEffectSets(of: entry).filter { !sets.contains($0) }, at: settled)
        case .settled where entry.kind == .action:
            // Its effects are the service's: the entity is read again before the writes queued after it go, and
            // they go against the version it left.
            // What its side effects name is cached no longer fresh: read again where it is shown, else when next shown.
            let fresh = await runner.read(entry.entityKey)
            let settled = clock.now()
            let effects = sideEffectPaths(of: entry)
            await record {
                try $0.settleOutbox(entry.id, etag: nil, at: settled)
                if let fresh { try $0.actionRan(on: entry.entityKey, copy: fresh.copy, etag: fresh.etag, at: settled) }
            }
            if fresh == nil { await engine?.readAgainSoon(entry.entityKey) }
            // (in a transaction of its own: a failure here must not undo the action's settling, or it would go again)
            if !effects.isEmpty,
                let stale = await recording({ try $0.markStale(from: entry.entityKey, along: effects, at: settled) }),
                !stale.isEmpty
            {
                await engine?.sideEffectsRan(stale)
            }
            await markListsOf(sideEffectSets(of: entry), at: settled)
        case .conflict where entry.kind == .action && entry.entityKey.isCall:
            // (sent without a version, so refused for another reason: nothing of it to read again)
            let reason = failure ?? "the service refused it as things stand"
            await record { try $0.failOutbox(entry.id, error: "\(reason) Nothing was done; r sends it again.") }
        case .conflict where entry.kind == .action:
            let reason = failure ?? "the entity changed on the service"
            // Sent before and unanswered, it may have run then (the version it changed is why this one is refused).
            let sentence =
                entry.outcomeUnknown
                ? "\(reason) An earlier attempt got no answer and may have run it: look on the service before r sends "
                    + "it again."
                : "\(reason) It changed on the service since it was read: nothing was done; r sends it again against "
                    + "the version the service has now."
            let fresh = await runner.read(entry.entityKey)
            let refused = clock.now()
            await record {
                try $0.failOutbox(entry.id, error: sentence)
                guard let fresh else { return }
                // The service's copy shows here; the writes queued after the action keep the version they were made
                // on.
                try $0.actionRan(
                    on: entry.entityKey, copy: fresh.copy, etag: fresh.etag, movesQueued: false, at: refused)
                if let etag = fresh.etag { try $0.setActionVersion(entry.id, etag: etag) }
            }
            if fresh == nil { await engine?.readAgainSoon(entry.entityKey) }
        case .settled:
            let copy = response.status == 200 ? runner.decodedCopy(response.body, entitySet: entry.entitySet) : nil
            // (a v4 answer may give its version only in the body, as `@odata.etag`: a draft's activation does)
            var etag = response.etag ?? (copy != nil ? runner.etagInBody(response.body) : nil)
            var serverCopy = copy
            // A change answered without its new version (a 204 with no ETag header) would leave the one it was sent
            // against, which the service has no more: the next change would be refused as if someone else had made
            // this one. The entity is read for its version (and its values) before anything else of it goes.
            if etag == nil, entry.kind == .update, entry.baseEtag != nil, let fresh = await runner.read(entry.entityKey)
            {
                etag = fresh.etag
                serverCopy = serverCopy ?? fresh.copy
            }
            let settled = clock.now()
            await record { [etag, serverCopy] in
                try $0.settleOutbox(entry.id, etag: etag, serverCopy: serverCopy, at: settled)
            }
            if entry.kind == .update {
                await sayWhatTheServiceChanged(entry.changes, answer: copy, of: entry.entityKey)
                await readSideEffects(of: entry, answer: copy)
            }
        case .alreadyGone:
            let settled = clock.now()
            await record { try $0.settleOutbox(entry.id, etag: nil, at: settled) }
        case .tunnelAndResend:
            learned.tunnelsMerge = true
            await record {
                try $0.learn(.refusesMergeVerb)
                try $0.retryOutboxLater(entry.id, error: failure ?? "", due: now)
            }
        case .conflict:
            await conflict(entry, error: failure ?? "the entity changed on the service")
        case .unknownOutcome:
            await waitForUser(entry, because: "The gateway got no answer (\(failure ?? "HTTP \(response.status)"))")
        case .retry(let after):
            await retryLater(entry, attempt: attempt, error: failure ?? "", after: after)
        case .offline:
            await retryLater(entry, attempt: attempt, error: failure ?? "", after: nil)
        case .refused:
            let sentence = Self.refusal(of: entry, failure: failure ?? "refused")
            await record { try $0.failOutbox(entry.id, error: sentence) }
        }
        return nil
    }

    /// What is known of the service that changes a write's verdict.
    var known: WriteVerdict.Known {
        WriteVerdict.Known(
            honoursRepeatability: learned.honoursRepeatability, tunnelsMerge: learned.tunnelsMerge,
            version4: model?.dialect == .v4)
    }

    /// A create made or not, nobody knows (its answer was lost): sent again to a service that ignores request ids it
    /// could be made twice, so it waits for the user to look and decide, saying `cause`.
    func waitForUser(_ entry: OutboxEntry, because cause: String) async {
        let sentence =
            "\(cause), so the service may or may not have made it. Look for it on the service: r sends it again, "
            + "x drops it."
        await record {
            try $0.failOutbox(entry.id, error: sentence)
            try $0.markOutcomeUnknown(entry.id)
        }
    }

    /// What any answer to a write tells before its own verdict: the service is there (what waited out a backoff goes
    /// now), whether it keeps request ids; and the request log line. Returns the failure's sentence, if it was one.
    func noteAnswer(
        _ response: TransportResponse, to request: TransportRequest, attempts: Int, started: Date, inBatch: Bool,
        at date: Date
    ) async -> String? {
        let answered = await engine?.writeAnswered(success: (200..<300).contains(response.status), at: date) ?? false
        if answered {
            // The first answer: what waited out a backoff from before goes now (this write's own verdict follows).
            await record { try $0.makeQueuedWritesDue() }
            again = true
        }
        if response.headers["repeatability-result"] != nil, !learned.honoursRepeatability {
            learned.honoursRepeatability = true
            await record { try $0.learn(.honoursRepeatability) }
        }
        let failure =
            (200..<300).contains(response.status)
            ? nil
            : ODataError.fromResponse(
                status: response.status, url: request.url, contentType: response.headers["content-type"],
                body: response.body
            ).description
        logWrite(
            request, status: response.status, bytes: response.body.count, started: started, attempts: attempts,
            error: failure, received: response.headers, inBatch: inBatch)
        return failure
    }

    /// The service's copy after a 412, kept beside mine for the user to choose.
    func conflict(_ entry: OutboxEntry, error: String) async {
        guard let (theirs, etag) = await runner.read(entry.entityKey) else {
            await retryLater(entry, attempt: entry.attempts + 1, error: error, after: nil)
            return
        }
        await record { try $0.conflictOutbox(entry.id, theirs: theirs, theirsEtag: etag, error: error) }
    }

    func retryLater(_ entry: OutboxEntry, attempt: Int, error: String, after serverWait: Double?) async {
        let wait = serverWait ?? configuration.writeRetry.delay(afterAttempt: attempt, random: random())
        let due = clock.now().addingTimeInterval(wait)
        await record { try $0.retryOutboxLater(entry.id, error: error, due: due) }
    }

    /// Edm types of a set's properties, for the request body; with `changes` naming a type derived from the set's
    /// (`@odata.type`, a new entity of it), that type's.
    func propertyTypes(of entitySet: String, changes: [ODataProperty] = []) -> [String: EdmPrimitiveType] {
        guard let model, let type = model.entityType(named: changes.statedType, inSet: entitySet) else { return [:] }
        var types: [String: EdmPrimitiveType] = [:]
        for property in model.properties(of: type) {
            if case .primitive(let primitive) = property.type { types[property.name] = primitive }
        }
        return types
    }

    /// Logs a write with the headers it sent and, when an answer came, those it got (secrets left out, as for reads).
    func logWrite(
        _ request: TransportRequest, status: Int?, bytes: Int, started: Date, attempts: Int, error: String?,
        received: [String: String] = [:], inBatch: Bool = false
    ) {
        let entry = RequestLogEntry(
            url: request.url, status: status, bytes: bytes, duration: clock.now().timeIntervalSince(started),
            outcome: error == nil ? .written : .failed, startedAt: started, attempts: attempts, error: error,
            method: (request.headers["X-HTTP-Method"].map { "POST (\($0))" } ?? request.method.rawValue)
                + (inBatch ? " in $batch" : ""),
            headers: JobRunner.logLines(sent: request.headers, received: received) + Self.bodyLine(request.body)
        )
        unwrittenLog.append(entry)
    }

    /// What a write sent, for the request log (`> body: {"model":"Ka"}`), cut past 2,000 characters.
    static func bodyLine(_ body: [UInt8]?) -> String {
        guard let body, !body.isEmpty else { return "" }
        let text = String(decoding: body.prefix(2_000), as: UTF8.self)
        return "\n> body: " + text + (body.count > 2_000 ? "… (\(body.count) bytes)" : "")
    }

    /// `Retry-After` in seconds (a number, or an HTTP date), capped at 5 minutes.
    static func retryAfter(_ response: TransportResponse, now: Date) -> Double? {
        guard let value = response.headers["retry-after"]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if let seconds = Double(value) { return min(max(seconds, 0), 300) }
        return HTTPDate.parse(value).map { min(max($0.timeIntervalSince(now), 0), 300) }
    }

    /// After a change the service answered without the entity: what it works out from the values changed
    /// (`Common.SideEffects`' targets, a "changed at") is read again, that much only (`$select`), and kept beside
    /// the values sent. Nothing is read for a change that sets nothing off, or one answered with the entity.
    func readSideEffects(of entry: OutboxEntry, answer copy: [ODataProperty]?) async {
        guard copy == nil,
            let effects = model?.sideEffects(ofSet: entry.entitySet, changing: entry.changes.map(\.name)),
            let read = await readTargets(of: entry.entityKey, effects, set: entry.entitySet)
        else { return }
        let (now, key, set) = (clock.now(), entry.entityKey, entry.entitySet)
        await record {
            try $0.upsertEntity(
                key: key, entitySet: set, type: nil, properties: read.properties, etag: read.etag, at: now,
                partial: true)
        }
    }
}
