import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// One fetch a screen needs.
struct FetchPlan: Sendable {
    var url: String
    var target: FetchTarget
    var priority: FetchPriority
    /// Entity sets the answer brings cut to a `$select` (merged into the cache, not replacing), each with the
    /// properties a whole entity of it carries (``PrefetchPolicy/Selection/partialSets``).
    var partialSets: [String: Set<String>] = [:]
    /// Asked even if the same URL was answered a moment ago: what it brought was cut since (a record known only
    /// in part whose detail is on screen).
    var overridesAnswered = false
}

extension SyncEngine {
    /// The fetches that make `content` at `visible` complete and fresh (see ``PrefetchPolicy``).
    func plan(_ content: ScreenContent, visible: Range<Int>, force: Bool) -> [FetchPlan] {
        switch content {
        case .list(let request): return planList(request, visible: visible, force: force)
        case .related(let parent, let path):
            guard let first = path.first else { return [] }
            let known = try? cache.relationKeys(parent, navigation: first)
            // Rows that are the relation's own entities (no hop) show every column: a copy cut for another screen
            // (a link entity prefetched with its label only) is not enough.
            if !force, let known, isFresh(known.fetchedAt), path.count > 1 || !hasPartialChildren(parent, first) {
                return []
            }
            if let navigation = model?.resolveNavigation(first, fromSet: parent.entitySet),
                navigation.declaringType != nil
            {
                // A navigation of the entity's derived type: read at its own path, through the cast
                // (`Staff(2)/NS.Mechanic/Certificates`), since services expand a cast path unevenly.
                let hops = path.count > 1 ? [path.dropFirst().joined(separator: "/")] : []
                let url = builder.url(ResourcePath(parent).appending(first), QueryOptions(expand: hops))
                let target = FetchTarget.relation(parent: parent, navigation: first, entitySet: navigation.targetSet)
                return [FetchPlan(url: url, target: target, priority: .visible)]
            }
            let shownOnly = [path.joined(separator: "/")]
            let expand =
                configuration.prefetch
                ? policy?.relatedExpansions(parentSet: parent.entitySet, path: path) ?? shownOnly : shownOnly
            return [entityPlan(parent, expand: expand, priority: .visible)]
        case .entity(let key):
            // A copy cut to what a list shows (a prefetch's `$select`) is not enough here.
            let cached = (try? cache.entity(key)) ?? nil
            if !force, let cached, cached.isComplete, isFresh(cached.fetchedAt) { return [] }
            var expand = configuration.prefetch ? policy?.nextScreenExpansions(forSet: key.entitySet) ?? [] : []
            // (who edits its draft, which its screen says first, prefetching or not)
            if let administration = model?.draftAdministration(ofSet: key.entitySet), !expand.contains(administration) {
                expand.append(administration)
            }
            var plan = entityPlan(key, expand: expand, priority: .visible)
            plan.overridesAnswered = cached?.isComplete == false
            return [plan]
        case .call(let request):
            // What a function answers: asked again when it is no longer fresh, or on `r`.
            let cached = (try? cache.callResult(request.key.canonical)) ?? nil
            // (an entity answered that the cache no longer holds is asked for again)
            let whole = cached?.entityKey.map { ((try? cache.entity($0)) ?? nil) != nil } ?? true
            if !force, let cached, whole, isFresh(cached.fetchedAt) { return [] }
            let name = request.path.segments.last?.name ?? ""
            let set = model?.operations.first { $0.name == name || $0.qualifiedName == name }?.entitySet
            return [
                FetchPlan(
                    url: builder.url(request.path, request.options), target: .call(request.key, entitySet: set),
                    priority: .visible)
            ]
        }
    }

    /// Whether some known entity of `parent`'s `navigation` is cached only in part.
    func hasPartialChildren(_ parent: EntityKey, _ navigation: String) -> Bool {
        guard case .known(let children, _)? = try? cache.related(parent, navigation: navigation) else { return false }
        return children.contains { !$0.isComplete }
    }

    func entityPlan(
        _ key: EntityKey, expand: [String], priority: FetchPriority, selection: PrefetchPolicy.Selection = .init()
    ) -> FetchPlan {
        FetchPlan(
            url: builder.url(ResourcePath(key), QueryOptions(expand: expand, select: selection.paths)),
            target: .entity(key, expanded: expand), priority: priority, partialSets: selection.partialSets
        )
    }

    /// The `$select` of a prefetch below an entity of `set` (none unless the configuration cuts prefetches).
    func prefetchSelection(forSet set: String, expand: [String], wholeRoot: Bool) -> PrefetchPolicy.Selection {
        guard configuration.selectPrefetch, !learned.refusesSelect, !expand.isEmpty, let policy else { return .init() }
        return policy.selection(forSet: set, expand: expand, wholeRoot: wholeRoot)
    }

    /// Pages covering `visible`, then the next page when the window nears the cached end.
    func planList(_ request: ListRequest, visible: Range<Int>, force: Bool) -> [FetchPlan] {
        let key = request.key
        let set = policy?.entitySet(of: request.path) ?? request.path.segments.last?.name ?? ""
        let expand = configuration.prefetch ? policy?.nextScreenExpansions(forSet: set) ?? [] : []
        let selection = prefetchSelection(forSet: set, expand: expand, wholeRoot: true)
        let state = try? cache.listState(key)
        let size = configuration.pageSize
        var plans: [FetchPlan] = []
        var start = (visible.lowerBound / size) * size
        // Nothing to ask at or past the end the list is known to have.
        let knownEnd = state.flatMap { $0.isComplete ? $0.fetchedCount : $0.totalCount }
        var windowIsCached = true
        repeat {
            if start > 0, let knownEnd, start >= knownEnd { break }
            let pageEnd = knownEnd.map { max(start, min(start + size, $0)) } ?? start + size
            let status = try? cache.listRangeStatus(key, range: start..<pageEnd)
            if let missing = status?.firstMissing {
                windowIsCached = false
                if let tail = tailPlan(
                    request, set: set, expand: expand, selection: selection, offset: missing, end: pageEnd, state: state
                ) {
                    plans.append(tail)
                } else {
                    plans.append(
                        pagePlan(
                            request, set: set, expand: expand, selection: selection, offset: missing, end: start + size,
                            state: state))
                }
            } else if force || !isFresh(status?.oldestFetch) {
                // Asked again the way it was first asked: far down a long list, from its end.
                plans.append(
                    tailPlan(
                        request, set: set, expand: expand, selection: selection, offset: start, end: pageEnd,
                        state: state)
                        ?? pagePlan(
                            request, set: set, expand: expand, selection: selection, offset: start, end: start + size,
                            state: nil))
            }
            start += size
        } while start < visible.upperBound
        // Prefetch ahead: the first uncached position within `prefetchMargin` rows after the window
        // (following the server's `__next` when the chain ends there), unless the list ends before it.
        // Only once the window itself is cached: until then its own pages come first (and a window whose
        // page failed is not guessed around).
        let ahead = visible.upperBound..<(visible.upperBound + configuration.prefetchMargin)
        if configuration.prefetch, windowIsCached, let state, !state.isComplete, !ahead.isEmpty,
            let missing = try? cache.listRangeStatus(key, range: ahead).firstMissing,
            state.totalCount.map({ missing < $0 }) ?? true
        {
            var next = pagePlan(
                request, set: set, expand: expand, selection: selection, offset: missing, end: missing + size,
                state: state)
            next.priority = .nextPage
            if !plans.contains(where: { $0.url == next.url }) { plans.append(next) }
        }
        return plans
    }

    /// The request for positions `offset..<end`: the first page, the server's next link
    /// when it continues there, else `$skip`/`$top`.
    func pagePlan(
        _ request: ListRequest, set: String, expand: [String], selection: PrefetchPolicy.Selection, offset: Int,
        end: Int, state: ListState?
    ) -> FetchPlan {
        // (the link and its position read together, not the position from `state`: a page of the chain written since
        // `state` was read moves both, and the next link with an older position would land its rows there)
        if offset > 0, state != nil, let (link, position) = (try? cache.listNextLink(request.key)) ?? nil,
            position == offset
        {
            // A link that carries what is left of our `$top` ends early by design: only a page
            // shorter than that remainder ends the list. It carries our `$select` too (servers copy the query), so
            // its answer is cut the same way; an entity that comes whole anyway is taken as whole.
            return FetchPlan(
                url: absolute(link),
                target: .listPage(
                    request.key, entitySet: set, offset: offset, requestedTop: Self.topParameter(in: link)),
                priority: .visible,
                partialSets: selection.partialSets
            )
        }
        return FetchPlan(
            url: pageURL(request, expand: expand, select: selection.paths, top: end - offset, skip: offset),
            target: .listPage(request.key, entitySet: set, offset: offset, requestedTop: end - offset),
            priority: .visible, partialSets: selection.partialSets
        )
    }

    /// Rows `offset..<end` far down a long list, asked from its end in the reverse order (``FetchTarget/listTail``)
    /// when that skips fewer rows than `$skip` from the start would, by a page or more, and the start would skip at
    /// least the configuration's `tailThreshold`: a service pays for every skipped row (an SQL `OFFSET`), so End on
    /// a million rows costs what the first page does. Only for a known length and an order that names every key property.
    func tailPlan(
        _ request: ListRequest, set: String, expand: [String], selection: PrefetchPolicy.Selection, offset: Int,
        end: Int, state: ListState?
    ) -> FetchPlan? {
        guard let total = state?.totalCount, end <= total, end > offset, offset >= configuration.tailThreshold,
            total - end + configuration.pageSize <= offset, !forwardOnly.contains(request.key),
            Self.isTotalOrder(request, set: set, model: model)
        else { return nil }
        // Up to the last row missing in the page: a service that answers fewer rows than asked (its own page
        // size) still fills new positions each time, never the same ones again.
        let rows = (try? cache.listWindow(request.key, range: offset..<end))?.rows ?? []
        let end = (rows.lastIndex { $0.entity == nil }).map { offset + $0 + 1 } ?? end
        let skipFromEnd = total - end
        return FetchPlan(
            url: pageURL(
                request, expand: expand, select: selection.paths, top: end - offset, skip: skipFromEnd, reversed: true),
            target: .listTail(request.key, entitySet: set, skipFromEnd: skipFromEnd, plannedTotal: total),
            priority: .visible, partialSets: selection.partialSets
        )
    }

    /// A page of `request`: `top` rows after `skip`, with its length, in the list's order or the reverse of it.
    func pageURL(
        _ request: ListRequest, expand: [String], select: [String] = [], top: Int, skip: Int, reversed: Bool = false
    ) -> String {
        var options = request.options
        if !select.isEmpty, options.select.isEmpty { options.select = select }
        if reversed {
            options.orderBy = options.orderBy.map { QueryOptions.OrderItem($0.property, descending: !$0.descending) }
        }
        options.expand = expand
        options.top = top
        options.skip = skip > 0 ? skip : nil
        options.skipToken = nil
        // (not of a set the service counts no list of: it may refuse the page for it)
        options.inlineCount = isCountable(request)
        options.filter = listFilter(request)
        // (and who edits each one's draft, since when: the list says it)
        if let set = draftSet(of: request), let administration = model?.draftAdministration(ofSet: set),
            !options.expand.contains(administration)
        {
            options.expand.append(administration)
        }
        return builder.url(request.path, options)
    }

    /// The set of `request`'s entities when the service edits it through drafts (a list of it, or a relation's list
    /// of it); nil otherwise.
    func draftSet(of request: ListRequest) -> String? {
        guard let last = request.path.segments.last, last.key == nil, !request.path.segments.contains(where: \.isCall),
            let model, let set = policy?.entitySet(of: request.path), model.draftActions(ofSet: set) != nil
        else { return nil }
        return set
    }

    /// `request`'s `$filter` as sent: a set edited through drafts holds its entities' drafts too, and its lists are
    /// of the active ones.
    func listFilter(_ request: ListRequest) -> String? {
        guard draftSet(of: request) != nil, let model else { return request.options.filter }
        return QueryFilter.compare(DraftActions.activeKey, .eq, .bool(true), type: .boolean).and(
            request.options.filter, dialect: model.dialect)
    }

    /// Whether the service counts `request`'s list (`Capabilities.CountRestrictions`, `sap:countable`).
    func isCountable(_ request: ListRequest) -> Bool {
        guard let set = policy?.entitySet(of: request.path) else { return true }
        return model?.entitySet(named: set)?.isCountable != false
    }

    /// A list whose first page came without its length, though asked for, and which goes on (issue 37): its length
    /// is asked once of the `/$count` segment, with the list's filter, so that the screen says how long it is and
    /// End reads its last rows from the end. Not for a search (a count of one is not defined everywhere), a call's
    /// answer, nor a set the service counts nothing of.
    func countIfUnknown(_ key: ListKey, set: String) {
        guard !counted.contains(key), let state = try? cache.listState(key), state.totalCount == nil,
            !state.isComplete,
            let request = screens.values.lazy.compactMap({ screen -> ListRequest? in
                guard case .list(let request) = screen.content, request.key == key else { return nil }
                return request
            }).first,
            request.options.search == nil, isCountable(request), !request.path.segments.contains(where: \.isCall)
        else { return }
        counted.insert(key)
        let url = builder.countURL(request.path, filter: listFilter(request))
        enqueue(url: url, target: .listCount(key, entitySet: set), priority: .nextPage, owner: nil, force: true)
    }

    /// Whether the list's order is a total one: it names every key property of the set, so two rows never tie and
    /// the reverse order is the list backwards.
    static func isTotalOrder(_ request: ListRequest, set: String, model: ServiceModel?) -> Bool {
        guard !request.options.orderBy.isEmpty, let model, let type = model.entityType(ofSet: set) else { return false }
        let ordered = Set(request.options.orderBy.map(\.property))
        let keys = model.keyProperties(of: type)
        return !keys.isEmpty && keys.allSatisfy(ordered.contains)
    }

    /// The `$top` value in a link's query, if any (`$top=30` or `%24top=30`).
    static func topParameter(in link: String) -> Int? {
        guard let query = link.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0] == "$top" || parts[0].lowercased() == "%24top" else { continue }
            return Int(parts[1])
        }
        return nil
    }

    /// A next link as an absolute URL (some servers send it relative to the service root).
    func absolute(_ link: String) -> String {
        runner.resolve(link)
    }

    /// The next screen and the level after it for an entity the cursor rests on (or the next screen alone); nil
    /// when already fresh.
    func planResting(_ key: EntityKey, nextScreenOnly: Bool = false) -> FetchPlan? {
        guard configuration.prefetch, let policy else { return nil }
        let wanted: [String]
        let memo = RestingExpansionKey(set: key.entitySet, nextScreenOnly: nextScreenOnly)
        if let known = restingExpansions[memo] {
            wanted = known
        } else {
            wanted =
                nextScreenOnly
                ? policy.nextScreenExpansions(forSet: key.entitySet) : policy.restingExpansions(forSet: key.entitySet)
            restingExpansions[memo] = wanted
        }
        guard !wanted.isEmpty else { return nil }
        // Known fresh, and nothing written since: no read (the count is taken before reading, so a write that
        // lands during the read is seen at the next rest).
        let changeCount = cache.changeCount
        if freshRests.changeCount != changeCount { freshRests = (changeCount, [:]) }
        let rested = RestedRow(key: key, nextScreenOnly: nextScreenOnly)
        if let until = freshRests.until[rested], clock.now() < until { return nil }
        // Ask only for what is not fresh: the list page usually brought the next screen already. One read for
        // every path (this runs at each rest of the cursor).
        let paths = wanted.map { $0.split(separator: "/").map(String.init) }
        // A read that fails counts as nothing fresh.
        let freshness =
            (try? cache.pathFreshness(from: key, paths: paths, breadth: Self.freshnessBreadth))
            ?? (entity: nil, paths: paths.map { _ in nil })
        let stale = zip(wanted, freshness.paths).filter { !isFresh($0.1) }.map(\.0)
        if stale.isEmpty, isFresh(freshness.entity) {
            if freshRests.until.count < Self.freshRestsLimit,
                let oldest = ([freshness.entity] + freshness.paths).compactMap({ $0 }).min()
            {
                freshRests.until[rested] = oldest.addingTimeInterval(configuration.freshness)
            }
            return nil
        }
        return entityPlan(
            key, expand: stale, priority: .prediction,
            selection: prefetchSelection(forSet: key.entitySet, expand: stale, wholeRoot: false))
    }

    /// Parents followed per hop when checking a path's freshness (a person with hundreds of cars is not read
    /// car by car at every rest).
    static let freshnessBreadth = 64

    /// Rested rows remembered as fresh at most, between two writes to the cache.
    static let freshRestsLimit = 4_096
}
