import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// Refresh by delta (issue 34): a list the service tracks changes to was read with `Prefer: odata.track-changes`
/// and kept the delta link that came with it (``JobRunner``). `r` on it asks that link what changed instead of
/// reading its pages again: changed entities are upserted where they are, those the answer says left the list go
/// (rows, count, and the entity unless a change made here waits), and the new link is kept. When an entity new to
/// the list comes back, only the list's pages can say where it goes: they are read again as a refresh always did.
/// An expired link (`410 Gone`, or any refusal) is forgotten and the pages are read again, and the request log says
/// so. A v2 JSON service that sends no tombstones leaves deletions to the next full read.
extension SyncEngine {
    /// Most pages one delta answer is read in.
    static let maximumDeltaPages = 100

    func deltaRefreshEnded() {
        deltaRefreshes -= 1
        resumeIdleWaitersIfIdle()
    }

    /// `r` on `screen`, which shows `request`: by the list's delta `link`; the request log says how it went.
    func refresh(_ screen: ScreenID, list request: ListRequest, by link: String) async {
        let started = clock.now()
        var entry = RequestLogEntry(
            url: link, status: nil, bytes: 0, duration: 0, outcome: .failed, startedAt: started, attempts: 1,
            error: nil, method: "GET")
        await refresh(screen, list: request, by: link, logging: &entry)
        entry.duration = clock.now().timeIntervalSince(started)
        let logged = entry
        _ = try? await cache.write { try $0.appendRequestLog(logged) }
    }

    /// The refresh itself, writing what it learns into the log `entry`.
    private func refresh(
        _ screen: ScreenID, list request: ListRequest, by link: String, logging entry: inout RequestLogEntry
    ) async {
        do {
            // The answer may come in pages (`@odata.nextLink`): all of them, the link to keep on the last.
            var changes = ODataCollection()
            var url = link
            for _ in 0..<Self.maximumDeltaPages {
                let response = try await transport.send(
                    TransportRequest(url: url, headers: ["Prefer": "odata.track-changes"], dialect: model?.dialect))
                entry.status = response.status
                entry.bytes += response.body.count
                serviceAnswered(success: (200..<300).contains(response.status), at: clock.now())
                guard response.status == 200 else {
                    let error = ODataError.fromResponse(
                        status: response.status, url: url, contentType: response.headers["content-type"],
                        body: response.body)
                    entry.error =
                        "The delta link no longer answers (\(error.description)): the list is read again from the start."
                    try? await cache.write { try $0.setDeltaLink(nil, for: request.key) }
                    replan(screen, force: true)
                    return
                }
                guard
                    case .collection(let page) = try runner.decoder.decode(
                        response.body,
                        entitySet: policy?.entitySet(of: request.path) ?? request.path.segments.last?.name,
                        url: url)
                else {
                    throw ODataError(kind: .malformedPayload, message: "the delta answer is not a collection", url: url)
                }
                changes.entities += page.entities
                changes.removed += page.removed
                changes.deltaLink = page.deltaLink
                guard let next = page.nextLink.map({ runner.resolve($0) }), next != url else { break }
                url = next
            }
            let next = changes.deltaLink.map { runner.resolve($0) }
            let (date, list, normaliser, collection) = (clock.now(), request.key, runner.normaliser, changes)
            let placed = try await cache.write { session in
                try normaliser.writeDelta(collection, list: list, resolvedLink: next, at: date, into: session)
            }
            entry.outcome = .fetched
            entry.method = "GET (delta: \(changes.entities.count) changed, \(changes.removed.count) removed)"
            if !placed || next == nil { replan(screen, force: true) }
        } catch is CancellationError {
            entry.outcome = .cancelled
        } catch {
            entry.error = "\(error): the list is read again."
            // A link refused (another host's) or an answer that is not a delta is not asked again.
            if let failure = error as? ODataError, failure.kind != .transport {
                try? await cache.write { try $0.setDeltaLink(nil, for: request.key) }
            }
            replan(screen, force: true)
        }
    }
}
