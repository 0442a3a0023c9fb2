import EntityCache
import Foundation
import ODataCore

/// Performs one job off the engine's actor: attempts with retry and backoff,
/// `If-None-Match` revalidation, decoding and the cache write.
struct JobRunner: Sendable {
    let cache: CacheDatabase
    let transport: any ODataTransport
    let clock: any SyncClock
    let random: @Sendable () -> Double
    let retry: RetryPolicy
    let decoder: PayloadDecoder
    let normaliser = Normaliser()

    func run(_ job: FetchJob) async -> JobReport {
        let started = ContinuousClock.now
        var report = await attempt(job)
        let elapsed = ContinuousClock.now - started
        report.duration = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return report
    }

    /// Whether `target` is an entity read with some of its relations expanded.
    static func expandsRelations(_ target: FetchTarget) -> Bool {
        guard case .entity(_, let expanded) = target else { return false }
        return !expanded.isEmpty
    }

    /// Whether `target` is an entity the cache holds only in part.
    func isPartialEntity(_ target: FetchTarget) -> Bool {
        guard case .entity(let key, _) = target, let entity = (try? cache.entity(key)) ?? nil else { return false }
        return !entity.isComplete
    }

    /// The attempts of one job, without timing, within ``RetryPolicy/budget`` seconds of real time.
    func attempt(_ job: FetchJob) async -> JobReport {
        var report = JobReport(outcome: .failed)
        let started = ContinuousClock.now
        func remaining() -> Double {
            let elapsed = ContinuousClock.now - started
            return retry.budget - (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
        }
        while report.attempts < retry.maxAttempts {
            guard !Task.isCancelled else { return cancelled(report) }
            report.attempts += 1
            var headers: [String: String] = [:]
            // Not for a record known only in part: "not modified" would leave it so.
            // A list's first page, of a set the service tracks changes to, asks for a delta link (issue 34); while
            // the list has none, a 304 (no body, so no link) would not do.
            var wantsDeltaLink = false
            if case .listPage(let key, let set, 0, _) = job.target,
                decoder.model?.entitySet(named: set)?.tracksChanges == true
            {
                headers["Prefer"] = "odata.track-changes"
                wantsDeltaLink = (try? cache.askedForDeltaLink(of: key)) != true
            }
            // Nor for an entity read with its relations: its ETag is the entity's, so "not modified" says nothing of
            // the entities it expands (a record added to a car's maintenance leaves the car's version as it was).
            // (This costs bytes: a refresh of such a read comes back whole. A wrong screen would cost more.)
            if !wantsDeltaLink, !Self.expandsRelations(job.target), let etag = try? cache.validator(forURL: job.url),
                !isPartialEntity(job.target)
            {
                headers["If-None-Match"] = etag
            }
            do {
                let request = TransportRequest(
                    url: job.url, headers: headers, timeout: max(0.001, remaining()), dialect: decoder.dialect)
                report.sentAt = clock.now()
                let response = try await transport.send(request)
                report.headers = Self.logLines(sent: headers, received: response.headers)
                guard !Task.isCancelled else { return cancelled(report) }
                report.status = response.status
                report.bytes = response.body.count
                switch response.status {
                case 200..<300:
                    return try await store(response, for: job, report: report)
                case 304:
                    try await confirm(job)
                    report.outcome = .notModified
                    report.error = nil
                    return report
                default:
                    let error = ODataError.fromResponse(
                        status: response.status, url: job.url, contentType: response.headers["content-type"],
                        body: response.body
                    )
                    report.error = error
                    guard RetryPolicy.isRetryable(status: response.status) else { return report }
                }
            } catch is CancellationError {
                return cancelled(report)
            } catch let error as ODataError {
                report.error = error
                // A body that is not OData, or an answer refused, will not improve by asking again at once.
                if error.kind == .malformedPayload || error.kind == .refused { return report }
            } catch {
                report.error = ODataError(kind: .transport, message: String(describing: error), url: job.url)
            }
            guard report.attempts < retry.maxAttempts else { break }
            let delay = retry.delay(afterAttempt: report.attempts, random: random())
            // Another attempt needs time to wait and then to be answered: stop when too little would be left.
            guard remaining() - delay >= max(1, retry.budget / 4) else { break }
            do {
                try await clock.sleep(seconds: delay)
            } catch {
                return cancelled(report)
            }
        }
        return report
    }

    /// Headers for the request log, sorted: what the fetcher added to the request (`> If-None-Match: …`) and
    /// what came back (`< content-type: …`), without anything that authenticates (the transport adds the
    /// credentials itself and never returns `Set-Cookie`; these are dropped again should a server echo them).
    static func logLines(sent: [String: String], received: [String: String]) -> String {
        let secret: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization", "x-csrf-token"]
        let out = sent.filter { !secret.contains($0.key.lowercased()) }.sorted { $0.key < $1.key }.map {
            "> \($0.key): \($0.value)"
        }
        let back = received.filter { !secret.contains($0.key) }.sorted { $0.key < $1.key }.map {
            "< \($0.key): \($0.value)"
        }
        return (out + back).joined(separator: "\n")
    }

    func cancelled(_ report: JobReport) -> JobReport {
        var report = report
        report.outcome = .cancelled
        report.error = nil
        return report
    }

    /// Decodes and writes a 2xx body, and remembers its ETag, in one transaction.
    func store(_ response: TransportResponse, for job: FetchJob, report: JobReport) async throws -> JobReport {
        if case .listCount(let key, _) = job.target { return try await storeCount(response, of: key, report: report) }
        var decoded = try decode(response, for: job)
        var notice: String?
        if case .collection(var collection) = decoded, let next = collection.nextLink, resolve(next) == job.url {
            // A next link to the page itself would be followed for ever.
            collection.nextLink = nil
            decoded = .collection(collection)
            notice = "the server's next link points to the same page, so paging stopped there"
        }
        let payload = decoded
        let date = clock.now()
        let requestedAt = report.sentAt
        let normaliser = self.normaliser
        // (an entity read with its relations keeps none: it is never sent, see `attempt`)
        let etag =
            Self.isWholeTail(payload, job) && !Self.expandsRelations(job.target)
            ? response.etag ?? Self.entityETag(payload, target: job.target) : nil
        var deltaLink: String?
        if case .collection(let collection) = payload, let link = collection.deltaLink { deltaLink = resolve(link) }
        let summary = try await cache.write { [deltaLink] session in
            let summary = try normaliser.write(
                payload, for: job.target, partial: job.partial, partialSets: job.partialSets, at: date,
                requestedAt: requestedAt, into: session)
            try session.setValidator(url: job.url, etag: etag, at: date)
            if case .listPage(let key, _, 0, _) = job.target,
                decoder.model?.entitySet(named: job.target.entitySetHint ?? "")?.tracksChanges == true
            {
                try session.setDeltaLink(deltaLink ?? "", for: key, at: date)
            }
            return summary
        }
        var report = report
        report.outcome = .fetched
        report.error = nil
        report.deferred = summary.deferred
        report.tailGaveNoRows = summary.tailGaveNoRows
        report.keptStale = keptStale(job.target)
        if let stopped = summary.pagingStopped ?? notice {
            report.notice = ODataError(kind: .refused, message: stopped, url: job.url)
        }
        return report
    }

    /// The answer of a list's `/$count` segment: a plain number (`42`), kept as the list's length.
    func storeCount(_ response: TransportResponse, of key: ListKey, report: JobReport) async throws -> JobReport {
        let text = String(decoding: response.body.prefix(40), as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard response.body.count <= 40, !text.isEmpty, text.allSatisfy(\.isASCII), let length = Int(text), length >= 0
        else {
            throw Self.namingContentType(
                ODataError(kind: .malformedPayload, message: "the list's count is not a number", url: nil),
                response.headers["content-type"])
        }
        try await cache.write { try $0.setListLength(key, length) }
        var report = report
        report.outcome = .fetched
        report.error = nil
        return report
    }

    /// Whether the list or the relations `target` wrote are still not fresh after the write: marked so by an
    /// action's effects after the read went out, which the cache keeps (an answer older than the marking).
    func keptStale(_ target: FetchTarget) -> Bool {
        let never = Date(timeIntervalSince1970: 0)
        switch target {
        case .listPage(let key, _, _, _):
            return ((try? cache.listState(key)) ?? nil)?.fetchedAt == never
        case .entity(let key, let expanded):
            let first = Set(expanded.compactMap { $0.split(separator: "/").first.map(String.init) })
            return first.contains { ((try? cache.relationKeys(key, navigation: $0)) ?? nil)?.fetchedAt == never }
        default:
            return false
        }
    }

    /// A link as an absolute URL: as given when absolute, else against the service root (as servers mean it).
    func resolve(_ link: String) -> String {
        link.contains("://") ? link : decoder.serviceRoot + (link.hasPrefix("/") ? String(link.dropFirst()) : link)
    }

    /// The body's payload; a body that is not OData JSON throws, named by its content type when that is not JSON.
    func decode(_ response: TransportResponse, for job: FetchJob) throws -> ODataPayload {
        do {
            var decoder = self.decoder
            if case .call = job.target {
                // (a function with nothing to answer — no such entity — says 204 with no body)
                if response.body.isEmpty || response.status == 204 { return .value(.null) }
                decoder.answersValues = true
            }
            return try decoder.decode(response.body, entitySet: job.target.entitySetHint, url: job.url)
        } catch {
            throw Self.namingContentType(error, response.headers["content-type"])
        }
    }

    /// A login page or proxy error sent with a 200 is named by what it is, not by its first bad byte.
    static func namingContentType(_ error: ODataError, _ contentType: String?) -> ODataError {
        guard let contentType, !contentType.lowercased().contains("json") else { return error }
        let mediaType =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? contentType
        var named = error
        named.message = "the answer is \(mediaType), not JSON (\(error.message))"
        return named
    }

    /// Whether an answer for rows asked from a list's end is the whole of what was asked — `$top` rows, of a list as
    /// long as planned — and so may validate its URL: a 304 to it later confirms exactly those positions
    /// (``tailRange(_:)``). A short answer (a page size of the service's own) keeps no validator. True for others.
    static func isWholeTail(_ payload: ODataPayload, _ job: FetchJob) -> Bool {
        guard case .listTail(_, _, _, let plannedTotal) = job.target else { return true }
        guard case .collection(let collection) = payload, let top = SyncEngine.topParameter(in: job.url) else {
            return false
        }
        return collection.entities.count == top && collection.count.map { Int($0) } == plannedTotal
    }

    /// A single entity's `__metadata.etag` validates its URL when the server sent no header.
    static func entityETag(_ payload: ODataPayload, target: FetchTarget) -> String? {
        guard case .entity = target, case .entity(let entity) = payload else { return nil }
        return entity.metadata.etag
    }

    /// A 304: the rows are current; only fetched-at moves.
    func confirm(_ job: FetchJob) async throws {
        let date = clock.now()
        let target = job.target
        let pageSize = job.target.pageLength
        let tailRows = tailRange(job)
        try await cache.write { session in
            switch target {
            case .listPage(let key, _, let offset, _):
                try session.touchList(key, range: offset..<(offset + pageSize), at: date)
            case .listTail(let key, _, _, _):
                if let tailRows { try session.touchList(key, range: tailRows, at: date) }
            case .entity(let key, let expanded):
                try session.touchEntity(key: key, at: date)
                for navigation in Set(expanded.compactMap { $0.split(separator: "/").first.map(String.init) }) {
                    try session.touchRelation(parent: key, navigation: navigation, at: date)
                }
            case .relation(let parent, let navigation, _):
                try session.touchRelation(parent: parent, navigation: navigation, at: date)
            case .call(let key, _):
                try session.touchCallResult(key.canonical, at: date)
            case .listCount:
                // (never asked with a validator: there is nothing to confirm)
                break
            }
        }
    }
}

extension JobRunner {
    /// The positions a 304 for rows asked from a list's end confirms: the answer it stands for held `$top` rows
    /// ending `skipFromEnd` before the end of a list as long as planned (only such answers keep a validator,
    /// ``isWholeTail(_:_:)``). Nil when the list's length changed since (its positions would be others; the next
    /// look asks again).
    func tailRange(_ job: FetchJob) -> Range<Int>? {
        guard case .listTail(let key, _, let skipFromEnd, let plannedTotal) = job.target,
            let top = SyncEngine.topParameter(in: job.url),
            (try? cache.listState(key))??.totalCount == plannedTotal
        else { return nil }
        let end = plannedTotal - skipFromEnd
        return max(0, end - top)..<max(0, end)
    }
}

extension FetchTarget {
    /// The positions a list page covers for a 304 (its `$top`, else a generous page).
    var pageLength: Int {
        if case .listPage(_, _, _, let top) = self { return top ?? 1000 }
        return 0
    }
}
