import EntityCache
import Foundation
import ODataCore

/// The draft of an entity a form is open on (issue 36), made as its Fiori app makes it: when the form opens, not when
/// it is saved, so the service holds the entity for this user while it is edited (a CAP or RAP service locks it for
/// everyone else), and each field the user leaves changed is kept in the draft at once, where the service checks it
/// and where it stays should the browser stop (it is resumed the next time the form opens).
///
/// * Opening: the edit action with `PreserveChanges` true and `If-Match` the version the form shows. A draft of the
///   user's own already there (one left by a browser that stopped, or by the Fiori app) is the service's 409: that
///   draft is read and resumed, its values in the form. A version changed since (412) or a draft another user holds
///   (423) is the service's sentence on the status line, and no draft is open: the change, once saved, goes the
///   queued way (``sendThroughDraft(_:draft:actions:)``), which meets the same answer in the outbox.
/// * A field: a `PATCH` of the draft with that one value (`If-Match: *`); the service's refusal is its sentence. A
///   draft gone from the service is no longer open.
/// * Saving: the queued update (durable, sent once) takes the open draft as it is, then prepares and activates it.
/// * Esc: the draft is discarded, as a queued `DELETE` (sent once, like any write).
///
/// Nothing here is queued but the discard: each request is made while the form is open, and the saved change holds
/// every value the fields sent, so a field whose `PATCH` got no answer loses nothing. Offline, no draft is made
/// here at all: the save is queued, and sent through a draft of its own when the service is back.
extension Outbox {
    /// Runs `work` on the draft of the active entity `key` after the draft work asked for on it before (a field is
    /// kept in the draft the form's opening made, and a discard follows both), off the caller: fetches and other
    /// writes go on meanwhile. A change of `key` sent through its draft waits for it
    /// (``waitForDraftWork(on:)``), so a save made while the form's draft is still being made takes that draft,
    /// whichever flush sends it.
    func queueDraftWork(on key: EntityKey, _ work: @escaping @Sendable (Outbox) async -> Void) {
        let name = key.canonical
        let before = draftWork[name]?.task
        draftWorkNumber += 1
        let number = draftWorkNumber
        draftWork[name] = (
            number,
            Task {
                await before?.value
                await work(self)
                if self.draftWork[name]?.number == number { self.draftWork[name] = nil }
            }
        )
    }

    /// Returns once the draft work asked for on `key` so far has ended.
    func waitForDraftWork(on key: EntityKey) async {
        // (a task removes its own entry before it ends: what is left then is work asked for meanwhile, waited for too)
        while let task = draftWork[key.canonical]?.task { await task.value }
    }

    /// Makes (or resumes) the draft of the active entity `key`, whose form shows version `etag`.
    func openDraft(of key: EntityKey, etag: String?) async {
        guard let model, let actions = model.draftActions(ofSet: key.entitySet), let edit = actions.edit,
            let draft = model.draftKey(of: key)
        else { return }
        // (one left open by a form closed otherwise than by Esc is the user's own: the 409 below resumes it)
        // (a discard of that draft still queued would go after it: the save then makes its own)
        let queued = (try? cache.outboxEntries()) ?? []
        guard !queued.contains(where: { $0.entityKey == draft || $0.entityKey == key }) else { return }
        let attempt = WriteRequestBuilder.Attempt(requestID: SyncEngine.requestID(), firstSent: clock.now(), etag: etag)
        let keep = [ODataProperty(name: "PreserveChanges", value: .bool(true))]
        guard case .success(let request) = draftAction(edit, on: key, inSet: key.entitySet, keep, attempt: attempt)
        else { return }
        // (no answer: the save goes the queued way)
        guard let (response, failure) = await sendNow(request) else { return }
        if (200..<300).contains(response.status) {
            // (made, whatever the answer holds: Esc discards it; without a copy the form shows the entity's values)
            let copy = runner.decodedCopy(response.body, entitySet: key.entitySet)
            await keepOpen(draft, of: key, copy: copy, etag: response.etag ?? runner.etagInBody(response.body))
            return
        }
        if response.status == 409 {
            // A draft of the user's own is there: it is resumed as it is.
            let read = TransportRequest(url: builder.url(ResourcePath(draft), QueryOptions()), dialect: model.dialect)
            if let (found, _) = await sendNow(read) {
                if found.status == 200, let copy = runner.decodedCopy(found.body, entitySet: key.entitySet) {
                    await keepOpen(draft, of: key, copy: copy, etag: found.etag ?? runner.etagInBody(found.body))
                    return
                }
            }
        }
        await record { _ in }
        let sentence = failure ?? "HTTP \(response.status)"
        await engine?.note(failure: "No draft made to edit in: \(sentence)")
    }

    /// `draft`, made or resumed for the active entity `key`, is open: its copy is kept in the cache under its own
    /// key, where the form finds it.
    func keepOpen(_ draft: EntityKey, of key: EntityKey, copy: [ODataProperty]?, etag: String?) async {
        openDrafts[key.canonical] = draft
        let now = clock.now()
        guard let copy else { return await record { _ in } }
        await record {
            try $0.upsertEntity(
                key: draft, entitySet: key.entitySet, type: nil, properties: copy, etag: etag, at: now, partial: false)
        }
    }

    /// Keeps `changes`, values of fields of the form open on `key`, in its open draft.
    func changeDraft(of key: EntityKey, changes: [ODataProperty]) async {
        guard let draft = openDrafts[key.canonical], !changes.isEmpty else { return }
        let attempt = WriteRequestBuilder.Attempt(requestID: SyncEngine.requestID(), firstSent: clock.now(), etag: "*")
        let request = writes.update(
            draft, changes: changes, types: propertyTypes(of: key.entitySet), attempt: attempt)
        guard let (response, failure) = await sendNow(request) else { return }
        if (200..<300).contains(response.status) {
            // The draft as the service now holds it: its answer, else what its side effects name read again (a
            // value the service works out from the one changed), else the values sent.
            var copy = changes
            var etag: String?
            if let answered = runner.decodedCopy(response.body, entitySet: key.entitySet) {
                (copy, etag) = (answered, response.etag ?? runner.etagInBody(response.body))
            } else if let effects = model?.sideEffects(ofSet: key.entitySet, changing: changes.map(\.name)),
                let read = await readTargets(of: draft, effects, set: key.entitySet)
            {
                copy = changes.filter { sent in !read.properties.contains { $0.name == sent.name } } + read.properties
            }
            let (now, held, version) = (clock.now(), copy, etag)
            await record {
                try $0.upsertEntity(
                    key: draft, entitySet: key.entitySet, type: nil, properties: held, etag: version, at: now,
                    partial: true)
            }
            return
        }
        if response.status == 404 { openDrafts[key.canonical] = nil }
        await record { _ in }
        let names = changes.map(\.name).joined(separator: ", ")
        await engine?.note(failure: "The draft did not take \(names): \(failure ?? "HTTP \(response.status)")")
    }

    /// Discards the open draft of `key` (the form was left without saving): a queued `DELETE`, sent once.
    func discardDraft(of key: EntityKey) async {
        guard let draft = openDrafts.removeValue(forKey: key.canonical) else { return }
        let (now, requestID) = (clock.now(), SyncEngine.requestID())
        await record {
            _ = try $0.enqueueDraftDiscard(
                draft, of: key, entitySet: key.entitySet, requestID: requestID, at: now)
        }
        flush()
    }

    /// The properties `effects` names of `draft` (a draft, or an active entity just changed), read from the service
    /// (`$select`ed; the whole entity when they name it, `""`, or a path through another), with the version the
    /// answer gives; nil when they name nothing or the read fails.
    func readTargets(
        of draft: EntityKey, _ effects: SideEffects, set: String
    ) async -> (properties: [ODataProperty], etag: String?)? {
        let names = effects.targetProperties.filter { name in
            !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
        }
        let whole = effects.targetEntities.contains("") || names.count < effects.targetProperties.count
        guard whole || !names.isEmpty else { return nil }
        var options = QueryOptions()
        if !whole { options.select = names }
        let request = TransportRequest(url: builder.url(ResourcePath(draft), options), dialect: model?.dialect)
        guard let (response, _) = await sendNow(request), response.status == 200,
            let read = runner.decodedCopy(response.body, entitySet: set)
        else { return nil }
        return (read, response.etag ?? runner.etagInBody(response.body))
    }

    /// Sends `request` once, now, and logs it: its answer and the service's sentence for a refusal; nil when no
    /// answer came (its failure logged).
    func sendNow(_ request: TransportRequest) async -> (response: TransportResponse, failure: String?)? {
        let started = clock.now()
        let outcome = await runner.exchange(request)
        guard case .success(let response) = outcome else {
            logWrite(request, status: nil, bytes: 0, started: started, attempts: 1, error: "\(outcome)")
            await record { _ in }
            return nil
        }
        let failure = await noteAnswer(
            response, to: request, attempts: 1, started: started, inBatch: false, at: clock.now())
        return (response, failure)
    }
}
