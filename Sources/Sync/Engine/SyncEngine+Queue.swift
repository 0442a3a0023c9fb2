import EntityCache
import Foundation
import ODataCore
import ScreenSeam

extension SyncEngine {
    /// Adds a job, or joins the identical one queued or running.
    ///
    /// A screen's request for a URL that is held back (``Hold``: answered and fresh, failing and in its backoff,
    /// refused) is dropped unless `force` (the user's refresh); a direct ``fetch(_:target:priority:partial:)``
    /// always goes out.
    func enqueue(
        url: String, target: FetchTarget, priority: FetchPriority, owner: ScreenID?, partial: Bool = false,
        partialSets: [String: Set<String>] = [:], overridesAnswered: Bool = false, force: Bool = false
    ) {
        if force || owner == nil {
            holds[url] = nil
        } else if overridesAnswered, holds[url]?.reason == .answered {
            holds[url] = nil
        } else if isHeldBack(url), queue.firstIndex(where: { $0.url == url }) == nil, running[url] == nil {
            return
        }
        if let index = queue.firstIndex(where: { $0.url == url }) {
            let isNewRequester = owner.map { !queue[index].owners.contains($0) } ?? true
            if let owner { queue[index].owners.insert(owner) } else { queue[index].pinned = true }
            if priority < queue[index].priority {
                queue[index].priority = priority
                sortQueue()
            }
            if isNewRequester { logInstant(url: url, outcome: .coalesced) }
            return
        }
        if var entry = running[url] {
            let isNewRequester = owner.map { !entry.job.owners.contains($0) } ?? true
            if let owner { entry.job.owners.insert(owner) } else { entry.job.pinned = true }
            running[url] = entry
            if isNewRequester { logInstant(url: url, outcome: .coalesced) }
            return
        }
        sequence += 1
        let job = FetchJob(
            url: url, target: target, priority: priority, owners: owner.map { [$0] } ?? [], pinned: owner == nil,
            sequence: sequence, partial: partial, partialSets: partialSets
        )
        if !isOnline {
            if var existing = parked[url] {
                existing.owners.formUnion(job.owners)
                existing.pinned = existing.pinned || job.pinned
                parked[url] = existing
            } else {
                parked[url] = job
            }
            startProbe()
            return
        }
        queue.append(job)
        sortQueue()
        dispatch()
    }

    func sortQueue() {
        queue.sort { ($0.priority, $0.sequence) < ($1.priority, $1.sequence) }
    }

    /// Starts queued jobs while slots are free.
    func dispatch() {
        while running.count < configuration.maxConcurrent, isOnline, !queue.isEmpty {
            let job = queue.removeFirst()
            let runner = self.runner
            let task = Task { [weak self] in
                let report = await runner.run(job)
                await self?.finish(job.url, report: report)
            }
            running[job.url] = (job, task)
            startedAt[job.url] = .now
        }
        watchForSlowRequests()
        publishStatus()
        resumeIdleWaitersIfIdle()
    }

    /// Removes `screen`'s claim on queued or running jobs whose URL is in `urls`;
    /// jobs nobody wants any more are dropped or cancelled.
    func release(_ urls: Set<String>, from screen: ScreenID) {
        guard !urls.isEmpty else { return }
        var dropped: [FetchJob] = []
        queue.removeAll { job in
            guard urls.contains(job.url) else { return false }
            var job = job
            job.owners.remove(screen)
            if job.isWanted { return false }
            dropped.append(job)
            return true
        }
        for index in queue.indices where urls.contains(queue[index].url) { queue[index].owners.remove(screen) }
        for job in dropped { logInstant(url: job.url, outcome: .cancelled) }
        for url in urls {
            if var entry = running[url] {
                entry.job.owners.remove(screen)
                running[url] = entry
                if !entry.job.isWanted { entry.task.cancel() }
            }
            if var job = parked[url] {
                job.owners.remove(screen)
                parked[url] = job.isWanted ? job : nil
            }
        }
        publishStatus()
        resumeIdleWaitersIfIdle()
    }

    /// Records the end of a running job (or a probe) and starts the next ones.
    func finish(_ url: String, report: JobReport) {
        if report.outcome == .failed, let status = report.status, [400, 414, 501].contains(status),
            !learned.refusesSelect,
            let job = running[url]?.job, !job.partialSets.isEmpty
        {
            refusedSelect(url, job: job, report: report)
            return
        }
        if report.outcome == .failed, report.status == 400, builder.dialect == .v4,
            let flat = ODataURLBuilder.flatteningExpand(url), let job = running[url]?.job
        {
            refusedNestedExpand(url, flat: flat, job: job, report: report)
            return
        }
        let entry = running.removeValue(forKey: url)
        startedAt[url] = nil
        refreshing.remove(url)
        if report.keptStale {
            // (an answer older than an action's effects on it: asked again below, not held as answered)
            holds[url] = nil
        } else {
            remember(url, report: report)
        }
        let now = clock.now()
        if report.isUnreachable {
            wentOffline(
                report.error.map(SyncProblem.request) ?? .sentence("The service could not be reached."), at: now)
            if let job = entry?.job, job.isWanted { parked[url] = job }
        } else if report.outcome == .fetched || report.outcome == .notModified {
            serviceAnswered(success: true, at: now)
        } else if report.outcome == .failed, let error = report.error {
            lastError = (.request(error), now)
            if report.status != nil { serviceAnswered(success: false, at: now) }
        }
        if let notice = report.notice { lastError = (.request(notice), now) }
        let target = entry?.job.target
        let log = RequestLogEntry(
            url: url, status: report.status, bytes: report.bytes, duration: report.duration, outcome: report.outcome,
            startedAt: now.addingTimeInterval(-report.duration), attempts: report.attempts,
            error: report.error?.description, headers: report.headers
        )
        let parkedNow = parked[url] != nil
        // Queued, not awaited: this step ends as it began, with no other intent let in halfway. Whoever waits for
        // the result is told once the log and the errors are in the cache.
        let waiters = resultWaiters.removeValue(forKey: url) ?? []
        let result = FetchResult(outcome: report.outcome, status: report.status, error: report.error)
        cache.enqueueWrite { session in
            try session.appendRequestLog(log)
            // (a count refused leaves the list as it was: its rows are there, only its length is not known)
            if let key = target?.listKey, report.outcome == .failed, !parkedNow, !(target?.isListCount ?? false) {
                try session.setListError(key, message: report.error?.description, at: now)
            }
            if let key = target?.listKey, let notice = report.notice {
                try session.setListError(key, message: notice.description, at: now)
            }
            if let subjects = target?.errorSubjects, !subjects.isEmpty {
                if report.outcome == .failed, !parkedNow, let error = report.error {
                    for subject in subjects {
                        try session.setFetchError(subject: subject, message: error.description, at: now)
                    }
                } else if report.outcome == .fetched || report.outcome == .notModified {
                    try session.clearFetchErrors(subjects: subjects)
                }
            }
        } then: { _ in
            for waiter in waiters { waiter.resume(returning: result) }
        }
        if let job = entry?.job, !report.deferred.isEmpty { fetchDeferred(report.deferred, for: job) }
        if report.tailGaveNoRows, let key = target?.listKey { forwardOnly.insert(key) }
        if report.outcome == .fetched, case .listPage(let key, let set, 0, _)? = target {
            countIfUnknown(key, set: set)
        }
        if report.outcome == .fetched, let key = target?.listKey { replanScreens(showing: key) }
        if report.keptStale, let owners = entry?.job.owners {
            for owner in owners { replan(owner, force: false) }
        }
        dispatch()
    }

    /// Logs a request the service refused, with what was done about it, and records what that taught; `then` runs
    /// once both are in the cache.
    func logRefusal(
        _ url: String, report: JobReport, note: String, learned fact: ServiceFact?,
        then done: @escaping @Sendable () -> Void = {}
    ) {
        let now = clock.now()
        let log = RequestLogEntry(
            url: url, status: report.status, bytes: report.bytes, duration: report.duration, outcome: report.outcome,
            startedAt: now.addingTimeInterval(-report.duration), attempts: report.attempts,
            error: (report.error?.description ?? "HTTP \(report.status ?? 0)") + " (\(note))", headers: report.headers)
        cache.enqueueWrite { session in
            try session.appendRequestLog(log)
            if let fact { try session.learn(fact) }
        } then: { _ in
            done()
        }
    }

    /// A service refused a request that named `$select` (its own page size of URL, a `$select` it does not take):
    /// from now on (and after a restart) prefetches ask for whole entities, and the screens that wanted this one
    /// ask again so. Tried before the v4 nested-`$expand` rule: the cut is the cheaper thing to give up.
    func refusedSelect(_ url: String, job: FetchJob, report: JobReport) {
        running[url] = nil
        startedAt[url] = nil
        learned.refusesSelect = true
        let waiters = resultWaiters.removeValue(forKey: url) ?? []
        let result = FetchResult(outcome: report.outcome, status: report.status, error: report.error)
        logRefusal(url, report: report, note: "asked again without $select", learned: .refusesSelect) {
            for waiter in waiters { waiter.resume(returning: result) }
        }
        replanAll()
        dispatch()
    }

    /// A v4 service answered 400 to a nested `$expand`: from now on (and after a restart) it is asked one level
    /// deep, and this job goes again so, for whoever wanted it. The refused request stays in the log as it was.
    func refusedNestedExpand(_ url: String, flat: String, job: FetchJob, report: JobReport) {
        running[url] = nil
        startedAt[url] = nil
        let newlyLearned = !learned.refusesNestedExpand
        learned.refusesNestedExpand = true
        if newlyLearned, let model {
            builder = ODataURLBuilder(serviceRoot: configuration.serviceRoot, model: model, nestsExpand: false)
        }
        logRefusal(
            url, report: report, note: "asked again without nested $expand",
            learned: newlyLearned ? .refusesNestedExpand : nil)
        if let waiters = resultWaiters.removeValue(forKey: url) { resultWaiters[flat, default: []] += waiters }
        if job.pinned {
            enqueue(
                url: flat, target: job.target, priority: job.priority, owner: nil, partial: job.partial,
                partialSets: job.partialSets)
        }
        // Screens ask again through the one-level builder.
        replanAll()
        dispatch()
    }

    /// Expansions the server answered `__deferred` are fetched by their own URL (`Person(1)/PersonCar`), for
    /// whoever wanted the expanding request: asking for the same `$expand` again would get the same answer.
    func fetchDeferred(_ navigations: [Normaliser.DeferredNavigation], for job: FetchJob) {
        for deferred in navigations.prefix(64) {
            let url = builder.url(ResourcePath(deferred.parent).appending(deferred.navigation))
            let set = model?.resolveNavigation(deferred.navigation, fromSet: deferred.parent.entitySet)?.targetSet
            let target = FetchTarget.relation(parent: deferred.parent, navigation: deferred.navigation, entitySet: set)
            for owner in job.owners { enqueue(url: url, target: target, priority: job.priority, owner: owner) }
            if job.pinned { enqueue(url: url, target: target, priority: job.priority, owner: nil) }
        }
    }

    /// Logs an outcome that sent no request (coalesced, cancelled before start).
    func logInstant(url: String, outcome: RequestLogEntry.Outcome) {
        let entry = RequestLogEntry(
            url: url, status: nil, bytes: 0, duration: 0, outcome: outcome, startedAt: clock.now(), attempts: 0
        )
        let waiters = outcome == .cancelled ? resultWaiters.removeValue(forKey: url) ?? [] : []
        if outcome == .cancelled { refreshing.remove(url) }
        guard !waiters.isEmpty else { return instantLog.add(entry) }
        // (whoever waits for the job is told once its line is in)
        cache.enqueueWrite {
            try $0.appendRequestLog(entry)
        } then: { _ in
            let result = FetchResult(outcome: .cancelled, status: nil, error: nil)
            for waiter in waiters { waiter.resume(returning: result) }
        }
    }

    func resumeIdleWaitersIfIdle() {
        guard queue.isEmpty, running.isEmpty, deltaRefreshes == 0, !idleWaiters.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Publishes the status for the screens when it changed (in memory: ``CacheDatabase/publishSyncStatus(_:)``).
    func publishStatus() {
        let status = SyncStatus(
            isOnline: isOnline, inFlight: running.count, queued: queue.count + parked.count,
            lastError: lastError?.problem.description, lastErrorAt: lastError?.at, lastSuccessAt: lastSuccessAt,
            slowRequest: running.isEmpty ? nil : slowNotice, download: downloads.progress
        )
        guard status != publishedStatus else { return }
        publishedStatus = status
        cache.publishSyncStatus(status)
    }
}
