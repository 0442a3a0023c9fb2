import Dispatch
import EntityCache
import Foundation
import ODataCore
import Terminal

/// Reading and observing the cache.
extension EntityListController {
    /// The rows worth reading around the visible ones: a page above and a page below.
    var wantedRange: Range<Int> {
        let page = max(cursor.pageSize, 1)
        let start = max(0, cursor.top - page)
        return start..<(cursor.top + 2 * page)
    }

    /// Reads what the screen shows now, synchronously, and observes it from here on.
    func reload() {
        observation?.cancel()
        // (whose drafts the rows have is read again with them)
        draftHolders = [:]
        switch source {
        case .list where rowModel.all != nil:
            // A filter or sort here holds every row: read them again (they changed while another screen was on top).
            arrangeList(reread: true)
        case .list, .entity, .call:
            loadWindow()
        case .related(let parent, let path):
            let read = Self.readRelated(environment.cache, parent: parent, path: path)
            let selected = selectedKey
            rowModel.all = read.map { relatedOrder.sorted($0.rows) }
            relatedFetchedAt = read?.fetchedAt
            applyFilterLocally()
            keepSelection(on: selected)
            observation = observeRelated(parent: parent, path: path)
            // A relation whose fetch failed stays unknown: the failure is said in the list, not "loading…".
            let subject = parent.canonical + "/" + (path.first ?? "")
            failureObservation?.cancel()
            relatedFailure = try? environment.cache.fetchError(subject: subject)
            failureObservation = environment.cache.observeFetchError(subject: subject) { [weak self] failure in
                guard let self, self.relatedFailure != failure else { return }
                self.relatedFailure = failure
                self.environment.setNeedsDisplay()
            }
        }
    }

    /// Reads and observes the window of the active list around the cursor.
    func loadWindow() {
        guard let request = activeRequest else { return }
        let key = request.key
        let range = wantedRange
        // The rows on screen are read now; the pages around them come with the observation's first answer, read off
        // the main thread (coming back to a list, or paging past what was read, reads a third as much before its frame).
        let now = cursor.pageSize > 0 ? cursor.top..<(cursor.top + cursor.pageSize) : range
        rowModel.window = try? environment.cache.listWindow(key, range: now)
        cursor.setCount(rowCount)
        observation?.cancel()
        // The callback only keeps what arrived: re-reading (the list may have grown past this window) and telling
        // the fetcher happen in `update()` before the frame it asks for, never inside the observation itself.
        observation = environment.cache.observeListWindow(key, range: range) { [weak self] window in
            guard let self else { return }
            let selected = self.selectedKey
            self.rowModel.window = window
            // (what arrived may say another holds a draft now: read again before the next frame)
            self.draftHolders = [:]
            self.cursor.setCount(self.rowCount)
            self.keepSelection(on: selected)
            self.environment.setNeedsDisplay()
        }
    }

    public func update() {
        fallBackFromFailedSearch()
        ensureWindowCovers()
        announceVisible()
        restIfRowArrived()
        readDraftHolders()
    }

    /// Who edits the drafts of the rows on screen that have one, where the set is edited through drafts and its
    /// entities' administrative data is cached with them (``draftHolders``).
    func readDraftHolders() {
        guard let set = shownSet, environment.model.draftAdministration(ofSet: set) != nil else { return }
        for position in cursor.visible {
            guard let shown = row(at: position)?.shown, shown["HasDraftEntity"] == .bool(true),
                draftHolders[shown.key] == nil
            else { continue }
            // (read once per row until the rows change: "" where the cache says nothing of it)
            guard let administration = environment.draftAdministration(of: shown.key) else {
                draftHolders[shown.key] = ""
                continue
            }
            draftHolders[shown.key] =
                administration.isMine
                ? "yours" : administration.user.map { String(TextSanitizer.sanitize($0).prefix(40)) } ?? ""
        }
    }

    /// Re-reads the window when the visible rows have left it.
    func ensureWindowCovers() {
        guard case .list = source, rowModel.all == nil, !rowModel.windowCovers(cursor.visible) else { return }
        loadWindow()
    }

    func observeRelated(parent: EntityKey, path: [String]) -> CacheObservation {
        let deliver: ([ListRow]?, Date?) -> Void = { [weak self] rows, fetchedAt in
            guard let self else { return }
            let selected = self.selectedKey
            self.rowModel.all = rows.map(self.relatedOrder.sorted)
            self.draftHolders = [:]
            self.relatedFetchedAt = fetchedAt
            self.applyFilterLocally()
            self.keepSelection(on: selected)
            self.environment.setNeedsDisplay()
        }
        if path.count == 1 {
            return environment.cache.observeRelated(parent, navigation: path[0]) { related in
                deliver(
                    related.elements.map { $0.enumerated().map { ListRow(position: $0, shown: $1, link: nil) } },
                    related.fetchedAt)
            }
        }
        return environment.cache.observeRelated(parent, path: path) { related in
            deliver(
                related.elements.map { $0.enumerated().map { ListRow(position: $0, shown: $1.target, link: $1.link) } },
                related.fetchedAt)
        }
    }

    /// The order of the shown set's profile (or the one the user chose with `s`): related rows come in the
    /// order of their links.
    var relatedOrder: ProfileOrder {
        userOrder ?? ProfileOrder(environment.setProfile(shownSet ?? "").orderBy ?? [])
    }

    static func readRelated(
        _ cache: any CacheReader, parent: EntityKey, path: [String]
    ) -> (
        rows: [ListRow], fetchedAt: Date
    )? {
        if path.count == 1 {
            guard let related = try? cache.related(parent, navigation: path[0]), let at = related.fetchedAt,
                let elements = related.elements
            else { return nil }
            return (elements.enumerated().map { ListRow(position: $0, shown: $1, link: nil) }, at)
        }
        guard let related = try? cache.related(parent, path: path), let at = related.fetchedAt,
            let elements = related.elements
        else { return nil }
        return (elements.enumerated().map { ListRow(position: $0, shown: $1.target, link: $1.link) }, at)
    }

    /// Tells the fetcher which rows are on screen (when they or the content changed, or when forced).
    func announceVisible(force: Bool = false) {
        let visible = cursor.visible.isEmpty ? 0..<max(cursor.pageSize, 1) : cursor.visible
        let shown = content
        guard force || told.lastAnnounced?.visible != visible || told.lastAnnounced?.content != shown else { return }
        // (a set the service reads only filtered is not asked for until a filter that will do is on)
        guard missingFilter == nil else { return }
        told.lastAnnounced = (shown, visible)
        environment.intents.screenDidShow(shown, visible: visible, screen: screenID)
    }

    /// After the cursor stops moving briefly (60 ms: longer than key repeat, short enough that the
    /// prefetch usually lands before the user has opened two screens), ask for the level after next.
    func scheduleRest() {
        told.restWork?.cancel()
        let work = DispatchWorkItem { [weak self] in
            MainActor.assumeIsolated { self?.cursorRested() }
        }
        told.restWork = work
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(60), execute: work)
    }

    /// When the row under a resting cursor arrives after the cursor got there, tell the fetcher now.
    func restIfRowArrived() {
        guard told.restWork == nil, let anchor = row(at: cursor.selected)?.anchor, anchor.key != told.restedOn else {
            return
        }
        scheduleRest()
    }

    /// The neighbours asked for too are the rows the cursor travels towards: the next row when it came down,
    /// the previous one when it came up, both at its first rest (the row it left was asked for when it rested
    /// there, or was passed over by a page's jump). The row the rested row's next screen would put its cursor on
    /// is named when the cache holds that screen: the fetcher asks the level after next for that row alone.
    func cursorRested() {
        told.restWork = nil
        guard let rested = row(at: cursor.selected), let key = rested.anchor?.key else { return }
        told.restedOn = key
        let offsets: [Int] =
            switch told.restedAt.map({ cursor.selected - $0 }) {
            case .some(let step) where step > 0: [1]
            case .some(let step) where step < 0: [-1]
            default: [-1, 1]
            }
        told.restedAt = cursor.selected
        var neighbours: [EntityKey] = []
        for offset in offsets {
            let position = cursor.selected + offset
            guard position >= 0, position < rowCount, let other = row(at: position)?.anchor else { continue }
            neighbours.append(other.key)
        }
        environment.intents.cursorDidRest(
            on: key, neighbours: neighbours, landing: landing(from: rested), in: screenID)
    }
}

/// The cursor stays on its entity when the rows move under it.
extension EntityListController {
    /// The selected row's anchor (the link entity for a row reached through one), before rows change.
    var selectedKey: EntityKey? { row(at: cursor.selected)?.anchor?.key }

    /// Puts the cursor back on `key` after the rows changed (a refresh, or a settled create, moved it): `e` or `x`
    /// right after then acts on the record the cursor was on. Where the entity is no longer among the rows read
    /// (deleted, or moved out of the window around the screen), the cursor keeps its position.
    func keepSelection(on key: EntityKey?) {
        if let awaiting = awaitingNewRow,
            let new = temporaryAnchors.first(where: { !awaiting.contains($0) }), let position = position(of: new)
        {
            awaitingNewRow = nil
            cursor.move(by: position - cursor.selected)
            return
        }
        guard let key, selectedKey != key, let position = position(of: key) else { return }
        cursor.move(by: position - cursor.selected)
    }

    /// The anchors of the rows read that the service has not given a key yet (made here, on their way).
    var temporaryAnchors: [EntityKey] { rowModel.temporaryAnchors }

    /// Where the row whose anchor is `key` is now, among the rows read.
    func position(of key: EntityKey) -> Int? { rowModel.position(of: key) }
}
