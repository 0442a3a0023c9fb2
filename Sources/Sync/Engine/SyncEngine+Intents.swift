import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// The intents screens send, delivered in order through one stream.
enum Intent: Sendable {
    case show(ScreenContent, visible: Range<Int>, screen: ScreenID)
    case rest(EntityKey, neighbours: [EntityKey], landing: EntityKey?, screen: ScreenID)
    case close(ScreenID)
    case refresh(ScreenID)
    /// A change made on a screen (``WriteIntents``), and what the user decided about a write in the outbox.
    case save(EntityChange)
    case create(EntityCreation)
    case link(EntityLink)
    case delete(EntityDeletion)
    case invoke(ActionInvocation)
    /// The draft of the entity a form is open on: made, a field kept in it, discarded.
    case editDraft(EntityKey, etag: String?)
    case changeDraft(EntityChange)
    case discardDraft(EntityKey)
    case resolve(Int64, OutboxResolution)
    /// A stream to save to a file, and Esc while it is saved (``DownloadIntents``).
    case download(StreamDownload)
    case upload(StreamUpload)
    case cancelDownload
    /// A stream whose size a screen shows.
    case measure(MediaStream, EntityKey)
    /// Sends the writes that are due (at start: those recorded before a restart, the waits of ended processes over).
    case flushOutbox
    /// Resumes once every earlier intent is handled (tests, ``SyncEngine/waitUntilIdle()``).
    case barrier(CheckedContinuation<Void, Never>)
}

extension SyncEngine: SyncIntents {
    public nonisolated func screenDidShow(_ content: ScreenContent, visible: Range<Int>, screen: ScreenID) {
        intents.yield(.show(content, visible: visible, screen: screen))
    }

    public nonisolated func cursorDidRest(
        on key: EntityKey, neighbours: [EntityKey], landing: EntityKey?, in screen: ScreenID
    ) {
        intents.yield(.rest(key, neighbours: neighbours, landing: landing, screen: screen))
    }

    public nonisolated func screenDidClose(_ screen: ScreenID) {
        intents.yield(.close(screen))
    }

    public nonisolated func refresh(screen: ScreenID) {
        intents.yield(.refresh(screen))
    }

    func handle(_ intent: Intent) async {
        switch intent {
        case .show(let content, let visible, let screen):
            // A screen of an entity not yet created has nothing to fetch until the service gives it a key.
            if Self.hangsFromNewEntity(content) { return }
            var state = screens[screen] ?? ScreenState(content: content, visible: visible)
            if state.content != content { state.predicted = [] }
            state.content = content
            state.visible = visible
            screens[screen] = state
            replan(screen, force: false)
        case .rest(let key, let neighbours, let landing, let screen):
            guard var state = screens[screen] else { return }
            // The level after next is two keys away: asked for the rested row only, and for the row its next
            // screen's cursor lands on when the screen named it (else for every row of that screen). A neighbour,
            // one key away, gets its next screen.
            var plans: [FetchPlan?] = []
            if !key.isTemporary {
                if let landing, !landing.isTemporary {
                    plans += [planResting(key, nextScreenOnly: true), planResting(landing, nextScreenOnly: true)]
                } else {
                    plans.append(planResting(key))
                }
            }
            plans += neighbours.filter { !$0.isTemporary }.map { planResting($0, nextScreenOnly: true) }
            let asked = plans.compactMap { $0 }
            let urls = Set(asked.map(\.url))
            let old = state.predicted
            state.predicted = urls
            screens[screen] = state
            // One URL planned twice is joined by `enqueue`.
            for plan in asked {
                enqueue(
                    url: plan.url, target: plan.target, priority: .prediction, owner: screen,
                    partialSets: plan.partialSets)
            }
            release(old.subtracting(urls), from: screen)
        case .download(let download):
            startDownload(download)
        case .upload(let upload):
            startUpload(upload)
        case .cancelDownload:
            stopDownload()
        case .measure(let stream, let key):
            startMeasuring(stream, of: key)
        case .close(let screen):
            guard let state = screens.removeValue(forKey: screen) else { return }
            release(state.shown.union(state.predicted), from: screen)
        case .refresh(let screen):
            // (by delta, a request on its own: the intents after it are not held up by its round trip)
            if case .list(let request)? = screens[screen]?.content, let link = try? cache.deltaLink(for: request.key) {
                deltaRefreshes += 1
                Task {
                    await self.refresh(screen, list: request, by: link)
                    self.deltaRefreshEnded()
                }
            } else {
                replan(screen, force: true)
            }
        case .save(let change):
            // Awaited here, so that writes are recorded in the order they were made.
            await record(change)
        case .create(let creation):
            await record(creation)
        case .link(let link):
            await record(link)
        case .delete(let deletion):
            await record(deletion)
        case .invoke(let invocation):
            await record(invocation)
        case .editDraft(let key, let etag):
            await draftWork(on: key) { await $0.openDraft(of: key, etag: etag) }
        case .changeDraft(let change):
            await draftWork(on: change.key) { await $0.changeDraft(of: change.key, changes: change.changes) }
        case .discardDraft(let key):
            // (queued, as any write: offline too)
            await outbox.queueDraftWork(on: key) { await $0.discardDraft(of: key) }
        case .resolve(let id, let resolution):
            await apply(resolution, to: id)
        case .flushOutbox:
            await flushOutbox()
        case .barrier(let continuation):
            continuation.resume()
        }
    }

    static func hangsFromNewEntity(_ content: ScreenContent) -> Bool {
        switch content {
        case .list, .call: false
        case .related(let parent, _): parent.isTemporary
        case .entity(let key): key.isTemporary
        }
    }

    /// Recomputes what `screen` needs, drops what it no longer needs, queues the rest.
    ///
    /// What a refresh asked for stays wanted until it ends: a later re-plan finds that data fresh and would
    /// otherwise cancel the refresh it is waiting on.
    func replan(_ screen: ScreenID, force: Bool) {
        guard var state = screens[screen] else { return }
        let plans = plan(state.content, visible: state.visible, force: force)
        let old = state.shown
        var urls = Set(plans.map(\.url))
        if force {
            refreshing.formUnion(urls)
        } else {
            urls.formUnion(old.intersection(refreshing))
        }
        state.shown = urls
        screens[screen] = state
        // Queue first, then release: the engine never looks idle in between.
        for plan in plans {
            enqueue(
                url: plan.url, target: plan.target, priority: plan.priority, owner: screen,
                partialSets: plan.partialSets, overridesAnswered: plan.overridesAnswered, force: force)
        }
        release(old.subtracting(urls), from: screen)
    }

    /// After a page lands, screens on that list may need the next one (server pages can be shorter than ours).
    func replanScreens(showing key: ListKey) {
        for (screen, state) in screens {
            if case .list(let request) = state.content, request.key == key { replan(screen, force: false) }
        }
    }

    func isFresh(_ date: Date?) -> Bool {
        guard let date else { return false }
        return clock.now().timeIntervalSince(date) < configuration.freshness
    }
}
