import EntityCache
import Foundation
import ODataCore

extension SyncEngine {
    /// The service could not be reached: queued work is parked and a probe started.
    func wentOffline(_ problem: SyncProblem, at date: Date) {
        lastError = (problem, date)
        guard isOnline else { return }
        isOnline = false
        for job in queue where job.isWanted { parked[job.url] = job }
        queue.removeAll()
        startProbe()
        publishStatus()
    }

    /// The service answered a read or a write, whatever the status: it is reachable (a success also ends the last
    /// error on the status line). Its first answer since this engine started makes the queued writes due at once:
    /// a wait left by failures before a restart, or during an outage, is not waited out once it answers.
    /// `sendsWrites` false leaves that to the caller (a write's answer: it makes them due before its own retry is
    /// set, or its own retry would be made due too); returns whether they are to be made due.
    @discardableResult
    func serviceAnswered(success: Bool, at date: Date, sendsWrites: Bool = true) -> Bool {
        // (published by the caller's next status change: a read's dispatch, a write's settling)
        if success { lastSuccessAt = date }
        if !isOnline {
            cameOnline(sendsWrites: sendsWrites)
            return true
        }
        guard !heardFromService else { return false }
        heardFromService = true
        if sendsWrites { Task { await self.sendQueuedWritesNow() } }
        return true
    }

    /// A request succeeded after being offline: parked work goes back in the queue.
    func cameOnline(sendsWrites: Bool = true) {
        isOnline = true
        heardFromService = true
        probeTask?.cancel()
        probeTask = nil
        let jobs = parked.values.sorted { ($0.priority, $0.sequence) < ($1.priority, $1.sequence) }
        parked.removeAll()
        queue.append(contentsOf: jobs)
        sortQueue()
        publishStatus()
        // Changes made while the service was away go now, not when their backoff ends.
        if sendsWrites { Task { await self.sendQueuedWritesNow() } }
    }

    /// After `offlineProbeInterval`, re-sends the most urgent parked job — or, with none parked, the queued
    /// writes; repeated (one probe at a time) until one gets an answer.
    func startProbe() {
        guard probeTask == nil else { return }
        let clock = self.clock
        let interval = configuration.offlineProbeInterval
        probeTask = Task { [weak self] in
            do { try await clock.sleep(seconds: interval) } catch { return }
            guard let self else { return }
            guard let job = await self.nextProbe() else {
                await self.probeWithWrites()
                return
            }
            let report = await self.runner.run(job)
            await self.probeFinished(job, report: report)
        }
    }

    /// Offline with nothing to fetch but changes to send: sending them is the probe (a write that still gets no
    /// answer starts the next one).
    func probeWithWrites() async {
        guard !isOnline, ((try? cache.outboxCounts().pending) ?? 0) > 0 else { return }
        await sendQueuedWritesNow()
    }

    /// The parked job to probe with, moved to running; nil (and probing stops) when none.
    func nextProbe() -> FetchJob? {
        guard !isOnline, let job = parked.values.min(by: { ($0.priority, $0.sequence) < ($1.priority, $1.sequence) })
        else {
            probeTask = nil
            return nil
        }
        parked[job.url] = nil
        // (the probe's own task runs it, not this placeholder: a screen letting the job go does not cancel it, as
        // it also asks whether the service is back; its answer is written as any other)
        running[job.url] = (job, Task {})
        startedAt[job.url] = .now
        watchForSlowRequests()
        publishStatus()
        return job
    }

    /// One probe ended: online again resumes everything; still offline schedules the next probe.
    func probeFinished(_ job: FetchJob, report: JobReport) {
        probeTask = nil
        finish(job.url, report: report)
        if !isOnline, !parked.isEmpty { startProbe() }
    }
}
