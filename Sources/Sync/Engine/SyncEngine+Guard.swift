import EntityCache
import Foundation
import ODataCore

/// Why the fetcher will not send a URL again by itself: every request needs a reason.
///
/// Re-planning happens on every intent and after every page that lands, so a plan that an answer cannot
/// satisfy (an empty page past a list's end, an expansion the server answers `__deferred`, a page the server
/// cuts short) would otherwise ask again at once, for as long as the screen is open. Here a URL goes out
/// again only for a reason: the user refreshes (`r`), its answer is no longer fresh, or a failure's backoff
/// has passed.
struct Hold: Sendable {
    enum Reason: Sendable {
        /// Answered (fetched or not modified): not asked again while that answer is fresh.
        case answered
        /// Failed in a way that may heal (a 5xx after all attempts, a body that did not decode): backoff.
        case failing
        /// Refused, or a 4xx: asking again gets the same; only the user's refresh sends it again.
        case refused
    }

    var reason: Reason
    /// When it may go out again by itself; nil for only on a refresh.
    var until: Date?
    /// Consecutive failures, for the backoff.
    var failures = 0
}

extension SyncEngine {
    /// Seconds before a failing URL is asked again by itself, after `failures` consecutive failed fetches.
    static func coolDown(afterFailures failures: Int) -> Double {
        min(300, 2 * Double(1 << min(max(failures - 1, 0), 8)))
    }

    /// Whether `url` may not go out now without the user asking for it.
    func isHeldBack(_ url: String) -> Bool {
        guard let hold = holds[url] else { return false }
        guard let until = hold.until else { return true }
        return clock.now() < until
    }

    /// Remembers how a fetch of `url` ended, for ``isHeldBack(_:)``.
    func remember(_ url: String, report: JobReport) {
        let now = clock.now()
        switch report.outcome {
        case .fetched, .notModified, .written:
            holds[url] = Hold(reason: .answered, until: now.addingTimeInterval(configuration.freshness))
        case .failed where report.isUnreachable:
            // Offline: parked, and the probe decides when to ask again.
            holds[url] = nil
        case .failed:
            let status = report.status ?? 0
            if report.error?.kind == .refused
                || ((400..<500).contains(status) && !RetryPolicy.isRetryable(status: status))
            {
                holds[url] = Hold(reason: .refused, until: nil)
            } else {
                let failures = (holds[url].map { $0.reason == .failing ? $0.failures : 0 } ?? 0) + 1
                let wait = Self.coolDown(afterFailures: failures)
                holds[url] = Hold(reason: .failing, until: now.addingTimeInterval(wait), failures: failures)
                replanAfter(seconds: wait)
            }
        case .cancelled, .coalesced, .saved:
            break
        }
        if holds.count > 4096 { holds = holds.filter { $0.value.until.map { $0 > now } ?? true } }
    }

    /// Once a failing URL's backoff has passed, screens that still want it ask again.
    func replanAfter(seconds: Double) {
        let clock = self.clock
        Task { [weak self] in
            do { try await clock.sleep(seconds: seconds) } catch { return }
            await self?.replanAll()
        }
    }

    func replanAll() {
        for screen in screens.keys { replan(screen, force: false) }
    }

    // MARK: - Slow requests

    /// Seconds after which a request still waiting for its answer is named on the status line.
    static let slowAfter: Double = 3

    /// Starts watching running requests once a second, while any run.
    func watchForSlowRequests() {
        guard slowWatch == nil, !running.isEmpty else { return }
        slowWatch = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self, await self.checkSlowRequests() else { return }
            }
        }
    }

    /// Publishes the oldest request that has waited past ``slowAfter``; false (and the watch ends) when none runs.
    func checkSlowRequests() -> Bool {
        guard !running.isEmpty else {
            slowWatch = nil
            slowNotice = nil
            publishStatus()
            return false
        }
        let now = ContinuousClock.now
        let oldest = startedAt.filter { running[$0.key] != nil }.min { $0.value < $1.value }
        if let (url, started) = oldest {
            let waited = (now - started).components.seconds
            slowNotice = Double(waited) >= Self.slowAfter ? "waiting \(waited) s for \(shortName(url))" : nil
        } else {
            slowNotice = nil
        }
        publishStatus()
        return true
    }

    /// A URL as the status line names it: relative to the service root.
    func shortName(_ url: String) -> String {
        url.hasPrefix(builder.serviceRoot) ? String(url.dropFirst(builder.serviceRoot.count)) : url
    }
}
