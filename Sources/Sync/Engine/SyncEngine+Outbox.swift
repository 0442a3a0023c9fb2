import EntityCache
import Foundation
import ODataCore

/// The engine's side of the ``Outbox``: it is told to flush when a write is recorded, a decision made or the service
/// is back, and it hears from the outbox what writes' answers say about the service, as reads' answers say it.
extension SyncEngine {
    /// Sends the writes that are due, unless a flush is already under way (it looks again when it ends).
    public func flushOutbox() async {
        await outbox.flush()
    }

    /// Makes every queued write due at once and sends them (the service is back).
    func sendQueuedWritesNow() async {
        await outbox.sendQueuedNow()
    }

    /// A write got an answer, whatever its status: the service is there. Returns whether this was its first answer
    /// since the engine started, or since it was away (then the writes that waited out a backoff go now).
    func writeAnswered(success: Bool, at date: Date) -> Bool {
        let answered = serviceAnswered(success: success, at: date, sendsWrites: false)
        publishStatus()
        return answered
    }

    /// A write got no answer: the service is away (the status line says so, the probe watches for its return).
    func writeGotNoAnswer(_ error: ODataError) {
        wentOffline(.request(error), at: clock.now())
        startProbe()
    }

    /// An entity an action ran on, which could not be read back at once: fetched as any screen's.
    func readAgainSoon(_ key: EntityKey) {
        let plan = entityPlan(key, expand: [], priority: .visible)
        enqueue(url: plan.url, target: plan.target, priority: .visible, owner: nil, force: true)
    }

    /// An action's side effects left relations of `parents` not fresh (``Outbox``): what was answered for those
    /// entities is no longer held back as fresh, and the screens showing a relation read again what is not fresh.
    func sideEffectsRan(_ parents: [EntityKey]) {
        let addresses = parents.map { builder.url(ResourcePath($0), QueryOptions()) }
        for (url, hold) in holds where hold.reason == .answered {
            if addresses.contains(where: { url == $0 || url.hasPrefix($0 + "?") }) { holds[url] = nil }
        }
        for (screen, state) in screens {
            guard case .related = state.content else { continue }
            replan(screen, force: false)
        }
    }

    /// An action on a list of `set` ran (``Outbox``): its lists `marked` are not fresh; what was answered for them is
    /// no longer held back, and the screens showing them read them again.
    func listsChanged(ofSet set: String, _ marked: [ListKey]) {
        let address = builder.url(ResourcePath(entitySet: set), QueryOptions())
        // (its own lists, and those narrowed to a derived type: `Set/NS.Type`)
        let lists = { (url: String) in ListKey.namesOwnList(url, of: address) }
        for (url, hold) in holds where hold.reason == .answered && lists(url) {
            holds[url] = nil
        }
        for key in marked { replanScreens(showing: key) }
    }

    /// Says `failure` on the status line.
    func note(failure: String) {
        note(.sentence(failure))
    }

    /// Says `problem` on the status line.
    func note(_ problem: SyncProblem) {
        lastError = (problem, clock.now())
        publishStatus()
    }
}
