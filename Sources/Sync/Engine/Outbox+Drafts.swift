import EntityCache
import Foundation
import ODataCore

/// Changes to an entity of a set the service edits through drafts (SAP RAP and CAP, issue 36; ``DraftActions``).
/// Such a service refuses a change to the active entity; the change is made as its Fiori app makes it, when the
/// queued update is sent:
///
/// 1. the edit action on the active entity makes its draft (unless a form open on it made one already, which is
///    taken as it is: ``openDraft(of:etag:)``), with `If-Match` the version the change was made on, so a
///    change of the entity on the service since is a conflict as for any update; `PreserveChanges` false: a draft
///    of the user's own already there (one an earlier attempt left after a refusal, or one left in the Fiori app)
///    is discarded and made anew, so nothing the user dropped comes back; one another user holds is refused;
/// 2. the draft is changed (`PATCH`, `If-Match: *`: the draft is the one just made);
/// 3. the preparation action checks it, where the service names one;
/// 4. the activation action makes it the active entity, whose answer settles the update as an update's answer does.
///
/// Each step is a request of its own with a request id of its own, derived from the update's, the same at every
/// attempt. A step refused or unanswered settles the update as that answer says (a lock by another user is the
/// service's sentence; no answer is tried again, from the first step). A change sent before whose edit now meets
/// 412 may have been activated then, its answer lost: when the service's copy holds every value it changes, it is
/// settled with that copy, not put to the user as a conflict. Not sent in a `$batch`: each step needs the one
/// before it done.
extension Outbox {
    /// The draft of the entity `entry` changes and the set's draft actions, when `entry` is an update of an entity of
    /// a set edited through drafts; nil otherwise.
    func draftEdit(of entry: OutboxEntry) -> (draft: EntityKey, actions: DraftActions)? {
        guard entry.kind == .update, let model, let actions = model.draftActions(ofSet: entry.entitySet),
            let draft = model.draftKey(of: entry.entityKey)
        else { return nil }
        return (draft, actions)
    }

    /// Sends `entry` through the draft of its entity (see above).
    func sendThroughDraft(_ entry: OutboxEntry, draft: EntityKey, actions: DraftActions) async {
        // (a form's draft still being made, or a field still being kept in it, comes first: the change takes it)
        await waitForDraftWork(on: entry.entityKey)
        // (marks it on its way; the change itself is aimed at the draft below)
        guard await prepared(entry) != nil else { return }
        let firstSent = entry.firstSent ?? clock.now()
        let attempts = entry.attempts + 1
        func attempt(_ step: String, etag: String?) -> WriteRequestBuilder.Attempt {
            WriteRequestBuilder.Attempt(requestID: Self.stepID(entry, step), firstSent: firstSent, etag: etag)
        }
        /// The draft action `name` on `key`, or nil (and the update failed) when it cannot be sent.
        func call(
            _ name: String, on key: EntityKey, _ arguments: [ODataProperty], step: String, etag: String?
        ) async
            -> TransportRequest?
        {
            switch draftAction(name, on: key, of: entry, arguments, attempt: attempt(step, etag: etag)) {
            case .success(let request): return request
            case .failure(let refusal):
                await record { try $0.failOutbox(entry.id, error: refusal.sentence) }
                return nil
            }
        }
        /// Sends one step; true when the next may follow, else the update is settled by what it got. An action step
        /// refused with 405 or 501 is refused (not a verb to tunnel, as an update's would be).
        func step(_ request: TransportRequest, isAction: Bool) async -> Bool {
            let started = clock.now()
            return await answered(request, isAction: isAction, await runner.exchange(request), started: started)
        }
        /// What `outcome`, the answer to one step, means: true when the next may follow.
        func answered(
            _ request: TransportRequest, isAction: Bool, _ outcome: Result<TransportResponse, any Error>,
            started: Date
        ) async -> Bool {
            if case .success(let response) = outcome, (200..<300).contains(response.status) {
                _ = await noteAnswer(
                    response, to: request, attempts: attempts, started: started, inBatch: false, at: clock.now())
                return true
            }
            if isAction, case .success(let response) = outcome, response.status == 405 || response.status == 501 {
                let failure =
                    await noteAnswer(
                        response, to: request, attempts: attempts, started: started, inBatch: false, at: clock.now())
                    ?? "HTTP \(response.status)"
                await record { try $0.failOutbox(entry.id, error: failure) }
                return false
            }
            if case .success(let response) = outcome, response.status == 412, entry.firstSent != nil,
                let fresh = await runner.read(entry.entityKey), Self.holds(fresh.copy, entry.changes)
            {
                // (sent before, and the service holds it: activated then, its answer lost)
                _ = await noteAnswer(
                    response, to: request, attempts: attempts, started: started, inBatch: false, at: clock.now())
                let settled = clock.now()
                await record { try $0.settleOutbox(entry.id, etag: fresh.etag, serverCopy: fresh.copy, at: settled) }
                return false
            }
            await settle(entry, request: request, outcome: outcome, started: started)
            return false
        }
        let patch = writes.update(
            draft, changes: entry.changes, types: propertyTypes(of: entry.entitySet),
            attempt: attempt("patch", etag: "*"))
        // The draft a form made when it opened (checked against this version then, and held for this user since)
        // takes the change as it is; one gone from the service meanwhile is made again.
        var patched = false
        if openDrafts.removeValue(forKey: entry.entityKey.canonical) == draft {
            // (a request id of its own: the draft made again below is another, whose PATCH must not be answered
            // from this one's)
            let patch = writes.update(
                draft, changes: entry.changes, types: propertyTypes(of: entry.entitySet),
                attempt: attempt("patch-open", etag: "*"))
            let started = clock.now()
            let outcome = await runner.exchange(patch)
            if case .success(let response) = outcome, response.status == 404 {
                _ = await noteAnswer(
                    response, to: patch, attempts: attempts, started: started, inBatch: false, at: clock.now())
            } else {
                patched = await answered(patch, isAction: false, outcome, started: started)
                guard patched else { return }
            }
        }
        if !patched, let edit = actions.edit {
            let discardOwn = [ODataProperty(name: "PreserveChanges", value: .bool(false))]
            guard let request = await call(edit, on: entry.entityKey, discardOwn, step: "edit", etag: entry.baseEtag),
                await step(request, isAction: true)
            else { return }
        }
        if !patched {
            guard await step(patch, isAction: false) else { return }
        }
        if let preparation = actions.preparation {
            let qualifier = [ODataProperty(name: "SideEffectsQualifier", value: .string(""))]
            guard let request = await call(preparation, on: draft, qualifier, step: "prepare", etag: nil),
                await step(request, isAction: true)
            else { return }
        }
        guard let activate = await call(actions.activation, on: draft, [], step: "activate", etag: nil) else { return }
        let started = clock.now()
        let outcome = await runner.exchange(activate)
        await settle(entry, request: activate, outcome: outcome, started: started)
    }

    /// Why a draft action cannot be sent, in a sentence.
    struct DraftActionRefusal: Error {
        var sentence: String
    }

    /// The request of the draft action `name`, bound to the type of `entry`'s set, on `key`.
    func draftAction(
        _ name: String, on key: EntityKey, of entry: OutboxEntry, _ arguments: [ODataProperty],
        attempt: WriteRequestBuilder.Attempt
    ) -> Result<TransportRequest, DraftActionRefusal> {
        draftAction(name, on: key, inSet: entry.entitySet, arguments, attempt: attempt)
    }

    /// The request of the draft action `name`, bound to the type of `set`, on `key`.
    func draftAction(
        _ name: String, on key: EntityKey, inSet set: String, _ arguments: [ODataProperty],
        attempt: WriteRequestBuilder.Attempt
    ) -> Result<TransportRequest, DraftActionRefusal> {
        let type = model?.entityType(ofSet: set)
        guard let model, let operation = model.operation(named: name, boundTo: type?.qualifiedName) else {
            return .failure(
                DraftActionRefusal(sentence: "The service edits \(set) through drafts, but does not offer \(name)."))
        }
        do {
            return .success(
                try OperationRequestBuilder(urls: builder).request(
                    operation, arguments: arguments, on: key, keyNames: type.map(model.keyProperties(of:)) ?? [],
                    attempt: attempt))
        } catch {
            return .failure(DraftActionRefusal(sentence: error.description))
        }
    }

    /// The request id of one step of `entry` on a draft (`edit`, `patch`, `prepare`, `activate`): derived from the
    /// write's own and from the values it sends, so that a step sent again for the same values is the same request
    /// (a service that keeps request ids does it once), and one sent after the values were edited in the outbox is a
    /// new one (else such a service would answer it with the first, and the draft would never take the new values).
    static func stepID(_ entry: OutboxEntry, _ step: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for property in entry.changes {
            for byte in (property.name + "\u{1F}" + String(describing: property.value) + "\u{1E}").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
        }
        let hex = String(hash, radix: 16)
        return entry.requestID + "-" + step + "-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Whether `copy` holds every value of `changes`.
    static func holds(_ copy: [ODataProperty], _ changes: [ODataProperty]) -> Bool {
        changes.allSatisfy { change in copy.first { $0.name == change.name }?.value == change.value }
    }

    /// Whether `entry` goes alone, never in a `$batch`: a change made through a draft, or a new entity of a set
    /// edited through drafts (made as a draft, then activated).
    func goesThroughDraft(_ entry: OutboxEntry) -> Bool {
        if case .create(_, _, _?) = entry.write { return true }
        guard let model, model.draftActions(ofSet: entry.entitySet) != nil else { return false }
        return entry.kind == .create || draftEdit(of: entry) != nil
    }

    /// The answer that settles a create: a set edited through drafts makes a new entity as a draft (its key's
    /// `IsActiveEntity` false), which is then activated (``activate(_:draft:actions:attempts:)``). Nil when the
    /// activation did not go: the create is then settled there by what it got.
    func activatedIfDraft(_ entry: OutboxEntry, _ response: TransportResponse) async -> TransportResponse? {
        guard let model, let actions = model.draftActions(ofSet: entry.entitySet), !response.body.isEmpty,
            case .entity(let made)? = try? runner.decoder.decode(response.body, entitySet: entry.entitySet),
            let draft = made.key, draft.entitySet == entry.entitySet,
            draft.values.contains(where: { $0.name == DraftActions.activeKey && $0.value == .bool(false) })
        else { return response }
        // (kept before it is activated: a browser stopped meanwhile resumes that draft, not a second one)
        await record { try $0.setCreateDraft(entry.id, draft: draft) }
        return await activate(entry, draft: draft, actions: actions, attempts: entry.attempts + 1)
    }

    /// A new entity of a set whose `Common.DraftRoot` names a `NewAction` (SAP RAP): the draft is made by that
    /// action, bound to the set (`POST …/Orders/S.OrdersNew`, with the create's values its parameters name, under
    /// the create's request id); then it takes every value the create sets and is activated, as a draft the service
    /// made of a `POST` is (``resumeDraft(_:draft:)``). The action's refusal settles the create as a refused create
    /// (its sentence); no answer, as a create's lost answer.
    func createThroughNewAction(_ entry: OutboxEntry, action name: String) async {
        guard await prepared(entry) != nil else { return }
        let now = clock.now()
        let attempt = WriteRequestBuilder.Attempt(requestID: entry.requestID, firstSent: entry.firstSent ?? now)
        let request: TransportRequest
        do throws(OperationCallError) {
            guard let model, let type = model.entityType(ofSet: entry.entitySet),
                let action = model.operations(boundTo: type.qualifiedName, collection: true).first(where: {
                    $0.qualifiedName == name
                })
            else {
                throw OperationCallError(
                    description: "The service makes new \(entry.entitySet) through \(name), but does not offer it.")
            }
            let names = Set(action.inputs(keyNames: []).map(\.name))
            request = try OperationRequestBuilder(urls: builder).request(
                action, arguments: entry.changes.filter { names.contains($0.name) },
                collection: ResourcePath(set: entry.entitySet), attempt: attempt)
        } catch {
            await record { try $0.failOutbox(entry.id, error: error.description) }
            return
        }
        let started = clock.now()
        let outcome = await runner.exchange(request)
        guard case .success(let response) = outcome, (200..<300).contains(response.status) else {
            await settle(entry, request: request, outcome: outcome, started: started)
            return
        }
        _ = await noteAnswer(
            response, to: request, attempts: entry.attempts + 1, started: started, inBatch: false, at: clock.now())
        guard !response.body.isEmpty,
            case .entity(let made)? = try? runner.decoder.decode(response.body, entitySet: entry.entitySet),
            let draft = made.key, draft.entitySet == entry.entitySet
        else {
            await record {
                try $0.failOutbox(
                    entry.id,
                    error: "The service answered \(name) without the draft it made, so the new \(entry.entitySet) "
                        + "cannot be finished here: look for its draft on the service.")
            }
            return
        }
        await record { try $0.setCreateDraft(entry.id, draft: draft) }
        await resumeDraft(entry, draft: draft)
    }

    /// A create whose draft the service made and did not activate, sent again: that draft takes the create's values
    /// (they may have been edited since; `If-Match: *`), then is activated; no second draft is made. A draft no
    /// longer there was activated by an attempt whose answer was lost (the active entity then settles the create), or
    /// was discarded on the service (the create fails, and sent again makes a new one).
    func resumeDraft(_ entry: OutboxEntry, draft: EntityKey) async {
        let now = clock.now()
        guard (try? await cache.write({ try $0.markOutboxSending(entry.id, at: now) })) != nil else { return }
        let attempts = entry.attempts + 1
        guard let model, let actions = model.draftActions(ofSet: entry.entitySet) else {
            await record {
                try $0.failOutbox(
                    entry.id,
                    error: "The service left it as the draft \(draft.canonical), and no longer edits "
                        + "\(entry.entitySet) through drafts.")
            }
            return
        }
        let keyNames = model.entityType(ofSet: entry.entitySet).map(model.keyProperties(of:)) ?? []
        // (its type, `@odata.type`, was said when the draft was made)
        let values = entry.changes.filter { !keyNames.contains($0.name) && !$0.isInstanceAnnotation }
        if !values.isEmpty {
            let patch = writes.update(
                draft, changes: values, types: propertyTypes(of: entry.entitySet, changes: entry.changes),
                attempt: WriteRequestBuilder.Attempt(
                    requestID: Self.stepID(entry, "patch"), firstSent: entry.firstSent ?? now, etag: "*"))
            guard await draftStep(entry, patch, draft: draft, attempts: attempts, values: values) else { return }
        }
        if let made = await activate(entry, draft: draft, actions: actions, attempts: attempts) {
            await settleCreate(entry, response: made)
        }
    }

    /// Activates `draft`, the one the service made for the create `entry`, under a request id derived from the
    /// create's: its answer (the active entity) is returned to settle the create. Otherwise the create (on which the
    /// draft is already recorded, so that it is activated when sent again) is settled by what the activation got
    /// (see ``draftStep(_:_:draft:attempts:outcome:started:values:)``).
    func activate(
        _ entry: OutboxEntry, draft: EntityKey, actions: DraftActions, attempts: Int
    ) async -> TransportResponse? {
        let attempt = WriteRequestBuilder.Attempt(
            requestID: Self.stepID(entry, "activate"), firstSent: entry.firstSent ?? clock.now())
        switch draftAction(actions.activation, on: draft, of: entry, [], attempt: attempt) {
        case .success(let request):
            let started = clock.now()
            let outcome = await runner.exchange(request)
            if case .success(let activated) = outcome, (200..<300).contains(activated.status) {
                _ = await noteAnswer(
                    activated, to: request, attempts: attempts, started: started, inBatch: false, at: clock.now())
                return activated
            }
            _ = await draftStep(entry, request, draft: draft, attempts: attempts, outcome: outcome, started: started)
        case .failure(let refusal):
            await record {
                try $0.failOutbox(
                    entry.id,
                    error: "The service made it as the draft \(draft.canonical), but did not activate it: "
                        + refusal.sentence)
            }
        }
        return nil
    }

    /// Sends one request on the draft a create made (`outcome`, when already sent); true when it was done. Else the
    /// create is settled, the draft staying on it (recorded when the service made it): no answer, a 408, 429 or 5xx is tried again (from the
    /// draft: nothing can be made twice); a draft no longer there settles it with the active entity when there is
    /// one, else fails it and forgets the draft; any other answer fails it with the service's sentence (sent again
    /// by the user, that draft goes on).
    /// `values`: what the create now sets (a draft gone, the active entity settles it only if it holds them; else
    /// they follow as a change of it).
    func draftStep(
        _ entry: OutboxEntry, _ request: TransportRequest, draft: EntityKey, attempts: Int,
        outcome sent: Result<TransportResponse, any Error>? = nil, started sentAt: Date? = nil,
        values: [ODataProperty] = []
    ) async -> Bool {
        let started = sentAt ?? clock.now()
        let outcome: Result<TransportResponse, any Error>
        if let sent { outcome = sent } else { outcome = await runner.exchange(request) }
        let response: TransportResponse
        switch outcome {
        case .success(let answer):
            response = answer
        case .failure(is CancellationError):
            return false
        case .failure(let error):
            logWrite(
                request, status: nil, bytes: 0, started: started, attempts: attempts, error: String(describing: error))
            let sentence = (error as? ODataError)?.description ?? String(describing: error)
            await retryLater(entry, attempt: attempts, error: sentence, after: nil)
            // (told once the create is queued again: the probe this starts makes queued writes due)
            await engine?.writeGotNoAnswer(
                error as? ODataError ?? ODataError(kind: .transport, message: sentence, url: request.url))
            return false
        }
        let failure = await noteAnswer(
            response, to: request, attempts: attempts, started: started, inBatch: false, at: clock.now())
        if (200..<300).contains(response.status) { return true }
        let reason = failure ?? "HTTP \(response.status)"
        if response.status == 404 {
            let active = ServiceModel.activeKey(of: draft)
            var found: TransportResponse?
            if let active { found = await activeCopy(active) }
            if let active, let found, (200..<300).contains(found.status) {
                // (activated by an attempt whose answer was lost)
                await settleCreate(entry, response: found)
                let held = runner.decodedCopy(found.body, entitySet: entry.entitySet) ?? []
                if !Self.holds(held, values) {
                    // (values edited since that attempt: they follow as a change of the entity it made)
                    let now = clock.now()
                    let etag = found.etag
                    await record {
                        _ = try $0.enqueueUpdate(
                            active, changes: values, baseEtag: etag, requestID: entry.requestID + "-edited", at: now)
                    }
                }
                return false
            }
            if active != nil, found.map({ WriteVerdict.isTransient($0.status) }) ?? true {
                // (whether it ran cannot be told yet: the draft stays on the create, and is looked for again)
                await retryLater(entry, attempt: attempts, error: reason, after: nil)
                return false
            }
            await record {
                try $0.setCreateDraft(entry.id, draft: nil)
                try $0.failOutbox(
                    entry.id,
                    error: "The draft \(draft.canonical) the service made of it is no longer there (\(reason)); sent "
                        + "again, a new one is made.")
            }
            return false
        }
        if WriteVerdict.isTransient(response.status) {
            await retryLater(
                entry, attempt: attempts, error: reason, after: Self.retryAfter(response, now: clock.now()))
            return false
        }
        await record {
            try $0.failOutbox(
                entry.id,
                error: "The service made it as the draft \(draft.canonical), but did not activate it: \(reason) "
                    + "Sent again, that draft is activated; the draft stays on the service until then.")
        }
        return false
    }

    /// The service's answer for the active entity `key` (logged as a write's read); nil when none came.
    func activeCopy(_ key: EntityKey) async -> TransportResponse? {
        let request = TransportRequest(url: builder.url(ResourcePath(key), QueryOptions()), dialect: model?.dialect)
        let started = clock.now()
        guard case .success(let response) = await runner.exchange(request) else { return nil }
        _ = await noteAnswer(response, to: request, attempts: 1, started: started, inBatch: false, at: clock.now())
        return response
    }
}
