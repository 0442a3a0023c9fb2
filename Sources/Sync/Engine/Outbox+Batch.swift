import EntityCache
import Foundation
import ODataCore

/// Writes flushed together: the due writes go in one `$batch` (up to ``SyncEngine/Configuration/writeBatchSize``),
/// each write its own changeset, and a create with the link entities that bind it in one changeset (v4:
/// `"Car@odata.bind":"$1"`; v2, which names a new entity by its Content-ID in URLs only: `POST $1/PersonCar` binding
/// the person, where the model has both navigations back), so that a refused link leaves no new entity behind,
/// linked to nobody.
///
/// Each answer inside is read as if its write had been sent alone (``Outbox/settle(_:request:outcome:started:inBatch:answeredAt:)``):
/// an inner `412` opens the conflict view for that write only. A changeset refused as a unit rolls back every write
/// in it, with a sentence saying none of it was made. A service that answers `$batch` with 404, 405 or 501 is
/// learned once (``ServiceFact/refusesBatch``) and sent one request per write from then on; a `413` halves the size
/// of later batches. An answer that cannot be read is a lost answer for every write in the batch (the service may or
/// may not have applied them), never a refusal.
extension Outbox {
    /// Whether the due writes go together.
    var batchesWrites: Bool {
        !learned.refusesBatch && learned.batchLimit > 1 && model != nil
    }

    /// Whether a refusal with `status` may say that the service does not take `$1` references (a bad request, or
    /// no such resource or method); not a sign-in, a conflict or a wait.
    static func mayRefuseReferences(_ status: Int) -> Bool { [400, 404, 405, 501].contains(status) }

    /// Sends `due` (one write per entity) in one `$batch`; fewer than two to send go alone.
    func sendBatch(_ due: [OutboxEntry]) async {
        // (a change made through a draft is steps each waiting on the one before: sent alone, beside the batch)
        let throughDrafts = due.filter(goesThroughDraft)
        if !throughDrafts.isEmpty {
            let rest = due.filter { !goesThroughDraft($0) }
            await withTaskGroup(of: Void.self) { group in
                for entry in throughDrafts { group.addTask { await self.send(entry) } }
                if !rest.isEmpty { group.addTask { await self.sendBatch(rest) } }
            }
            return
        }
        let version4 = model?.dialect == .v4
        var changesets: [[(entry: OutboxEntry, request: TransportRequest, id: String)]] = []
        var number = 0
        func nextID() -> String {
            number += 1
            return String(number)
        }
        // All of them on their way, in one transaction.
        let now = clock.now()
        let ids = due.map(\.id)
        guard
            (try? await cache.write({ session in try ids.forEach { try session.markOutboxSending($0, at: now) } }))
                != nil
        else { return }
        for entry in due {
            guard let request = await prepared(entry, markedAt: now) else { continue }
            var changeset = [(entry, request, nextID())]
            if entry.kind == .create, entry.entityKey.isTemporary {
                let now = clock.now()
                let claimant = cache.claimant
                let key = entry.entityKey
                let links =
                    (try? await cache.write { try $0.claimQueuedLinks(to: key, at: now, claimant: claimant) }) ?? []
                let reference = "$" + changeset[0].2
                for link in links where version4 || (!learned.refusesReferences && version2Join(link) != nil) {
                    guard let linkRequest = await prepared(link, reference: reference) else { continue }
                    changeset.append((link, linkRequest, nextID()))
                }
            }
            changesets.append(changeset)
        }
        guard !changesets.isEmpty else { return }
        if changesets.count == 1, changesets[0].count == 1 {
            let (entry, request, _) = changesets[0][0]
            await exchangeAlone(entry, request: request)
            return
        }
        let batch = ODataBatch(
            changesets: changesets.map { $0.map { ODataBatch.Item(request: $0.request, contentID: $0.id) } })
        let dialect = model?.dialect ?? .v2
        let format = ODataBatch.format(for: dialect)
        let request = batch.request(
            serviceRoot: builder.serviceRoot, dialect: dialect, format: format, boundary: UUID().uuidString)
        let started = clock.now()
        let response: TransportResponse
        switch await runner.exchange(request) {
        case .success(let answer):
            response = answer
        case .failure(let error):
            // (every write of the batch is queued again before the engine hears the service is away: its probe,
            // starting at once, makes the queued writes due and would miss those still marked as sending)
            var away: ODataError?
            for changeset in changesets {
                for (entry, inner, _) in changeset {
                    let said = await settle(
                        entry, request: inner, outcome: .failure(error), started: started, inBatch: true,
                        tellsEngine: false)
                    away = away ?? said
                }
            }
            if let away { await engine?.writeGotNoAnswer(away) }
            return
        }
        switch response.status {
        case 404, 405, 501:
            // No `$batch` here: learned once, and these go one by one at once.
            learned.refusesBatch = true
            logBatch(
                request, response: response, started: started, note: "the service takes no $batch; writes go one by one"
            )
            await record { try $0.learn(.refusesBatch) }
            await sendAgainNow(changesets.flatMap { $0.map(\.entry) })
            return
        case 413:
            learned.batchLimit = max(1, min(learned.batchLimit, batch.count) / 2)
            logBatch(
                request, response: response, started: started,
                note: "too large; later batches hold \(learned.batchLimit)")
            await sendAgainNow(changesets.flatMap { $0.map(\.entry) })
            return
        case 200..<300:
            break  // read below (only 200 and 202 hold answers)
        default:
            // The batch itself was refused or failed: its answer is each write's (none of them was applied).
            if !version4, !learned.takesReferences, Self.mayRefuseReferences(response.status),
                changesets.contains(where: { $0.count > 1 })
            {
                learned.refusesReferences = true
            }
            for changeset in changesets {
                for (entry, inner, _) in changeset {
                    await settle(entry, request: inner, outcome: .success(response), started: started, inBatch: true)
                }
            }
            return
        }
        let answers: [ChangesetAnswer]
        do {
            answers = try batch.decode(response, format: format, url: request.url)
        } catch {
            // What was applied cannot be told: as for an answer lost on the way (though the service is there).
            _ = await engine?.writeAnswered(success: false, at: clock.now())
            for changeset in changesets {
                for (entry, inner, _) in changeset {
                    await answerUnreadable(entry, request: inner, reason: error.description, started: started)
                }
            }
            return
        }
        // Each answer read as if its write went alone, at the batch's time.
        let answeredAt = clock.now()
        // Changes and deletes the service applied (the common case) settle together, in one transaction.
        var applied: [(entry: OutboxEntry, etag: String?, copy: [ODataProperty]?)] = []
        for (changeset, answer) in zip(changesets, answers) {
            if case .whole(let refusal) = answer, changeset.count > 1, (400..<500).contains(refusal.status),
                ![408, 429].contains(refusal.status)
            {
                // (a v2 changeset of more than one is a join)
                if !version4, !learned.takesReferences, Self.mayRefuseReferences(refusal.status) {
                    learned.refusesReferences = true
                }
                await refuseTogether(changeset.map { ($0.entry, $0.request) }, refusal: refusal, started: started)
                continue
            }
            if !version4, changeset.count > 1, case .each = answer,
                answer.answer(at: changeset.count - 1).map({ (200..<300).contains($0.status) }) == true
            {
                learned.takesReferences = true
            }
            for (index, (entry, inner, _)) in changeset.enumerated() {
                guard let own = answer.answer(at: index) else { continue }
                if case .each = answer, (200..<300).contains(own.status), entry.kind != .create, entry.kind != .action {
                    _ = await noteAnswer(
                        own, to: inner, attempts: entry.attempts + 1, started: started, inBatch: true, at: answeredAt)
                    let copy = own.status == 200 ? runner.decodedCopy(own.body, entitySet: entry.entitySet) : nil
                    applied.append((entry, own.etag, copy))
                    continue
                }
                await settle(
                    entry, request: inner, outcome: .success(own), started: started, inBatch: true,
                    answeredAt: answeredAt)
            }
        }
        guard !applied.isEmpty else { return }
        let (settled, done) = (clock.now(), applied)
        await record { session in
            for (entry, etag, copy) in done {
                try session.settleOutbox(entry.id, etag: etag, serverCopy: copy, at: settled)
            }
        }
        for (entry, _, copy) in applied where entry.kind == .update {
            await sayWhatTheServiceChanged(entry.changes, answer: copy, of: entry.entityKey)
            await readSideEffects(of: entry, answer: copy)
        }
    }

    /// A write whose batch came back with an answer that cannot be read: it may or may not have been applied. A
    /// create waits for the user where the service does not keep request ids (sent again, it could be made twice);
    /// anything else waits to be sent again (a change meets its ETag, a delete finds the entity gone).
    func answerUnreadable(_ entry: OutboxEntry, request: TransportRequest, reason: String, started: Date) async {
        let attempt = entry.attempts + 1
        logWrite(request, status: nil, bytes: 0, started: started, attempts: attempt, error: reason, inBatch: true)
        if entry.kind.runsOnce, !learned.honoursRepeatability {
            await waitForUser(entry, because: "The answer could not be read (\(reason))")
        } else {
            await retryLater(entry, attempt: attempt, error: reason, after: nil)
        }
    }

    /// One write on its own, as ``send(_:)`` sends it.
    func exchangeAlone(_ entry: OutboxEntry, request: TransportRequest) async {
        let started = clock.now()
        let outcome = await runner.exchange(request)
        await settle(entry, request: request, outcome: outcome, started: started)
    }

    /// A changeset the service refused as a unit: every write in it goes back, each saying that none of it was made.
    func refuseTogether(
        _ writes: [(entry: OutboxEntry, request: TransportRequest)], refusal: TransportResponse, started: Date
    ) async {
        let reason = ODataError.fromResponse(
            status: refusal.status, url: writes.last?.request.url, contentType: refusal.headers["content-type"],
            body: refusal.body
        ).description
        func name(_ entry: OutboxEntry) -> String { (entry.kind == .create ? "the new " : "") + entry.entitySet }
        func sentence(for entry: OutboxEntry) -> String {
            let others = writes.filter { $0.entry.id != entry.id }.map { name($0.entry) }
            return "\(reason) It was sent with \(others.joined(separator: " and ")) as one change, so none of it was "
                + "made: e changes it and sends it again, x drops it."
        }
        for (entry, request) in writes {
            logWrite(
                request, status: refusal.status, bytes: refusal.body.count, started: started,
                attempts: entry.attempts + 1, error: reason, received: refusal.headers, inBatch: true)
        }
        // (in one transaction: a refused changeset of a hundred writes is not a hundred of them)
        let refusals = writes.reversed().map { (id: $0.entry.id, sentence: sentence(for: $0.entry)) }
        await record { session in
            for refusal in refusals { try session.failOutbox(refusal.id, error: refusal.sentence) }
        }
        _ = await engine?.writeAnswered(success: false, at: clock.now())
    }

    /// Writes that went out in a batch the service would not take as one: queued again, due at once.
    func sendAgainNow(_ entries: [OutboxEntry]) async {
        let now = clock.now()
        let ids = entries.map(\.id)
        await record { session in
            for id in ids { try session.retryOutboxLater(id, error: "", due: now) }
        }
        again = true
    }

    /// The batch itself in the request log, when what it taught is not in its writes' lines.
    func logBatch(_ request: TransportRequest, response: TransportResponse, started: Date, note: String) {
        let entry = RequestLogEntry(
            url: request.url, status: response.status, bytes: response.body.count,
            duration: clock.now().timeIntervalSince(started), outcome: .failed, startedAt: started, attempts: 1,
            error: note, method: request.method.rawValue,
            headers: JobRunner.logLines(sent: request.headers, received: response.headers))
        unwrittenLog.append(entry)
    }
}
