import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// The background fetcher: one actor owning the fetch queue and what screens want.
///
/// * **Priority queue** — jobs ordered by ``FetchPriority`` then arrival; at most
///   `maxConcurrent` on the wire.
/// * **De-duplication** — one job per URL: a second request for a queued or running
///   URL joins it (logged `coalesced`) and the server sees it once.
/// * **Cancel** — jobs belong to screens; when no screen wants a job (closed, or
///   scrolled away) it is dropped from the queue or its task cancelled (`cancelled`).
/// * **Retry / revalidation** — see ``JobRunner`` and ``RetryPolicy``.
/// * **Offline** — when the service cannot be reached, jobs are parked, the status
///   says offline, and a probe retries the most urgent one every
///   `offlineProbeInterval` until the service answers; then parked jobs resume.
public actor SyncEngine {
    /// Tunables, all with working defaults.
    public struct Configuration: Sendable {
        public var serviceRoot: String
        public var maxConcurrent = 4
        /// Writes on the wire at once, each to a different entity (one entity's writes go one after another).
        public var maxConcurrentWrites = 8
        /// Writes sent together in one `$batch` (each its own changeset); 1 sends one request per write.
        public var writeBatchSize = 100
        /// `$batch`es on the wire at once (each to different entities).
        public var maxConcurrentBatches = 2
        /// Rows per list request (`$top`).
        public var pageSize = 50
        /// Fetch the next page when the window's end is this close to the cached end.
        public var prefetchMargin = 25
        /// Rows a page would skip from the start before it is asked for from the end instead (``FetchTarget/listTail``).
        public var tailThreshold = 1000
        /// Seconds for which fetched data is not fetched again.
        public var freshness: Double = 300
        public var retry = RetryPolicy()
        /// Backoff for writes, which are tried again until the service settles them or the user drops them.
        public var writeRetry = RetryPolicy(maxAttempts: .max, baseDelay: 0.5, maxDelay: 60, budget: .infinity)
        public var offlineProbeInterval: Double = 5
        public var profile = PrefetchHints()
        /// Predict the next screens (`$expand` of what a drill-down shows, the next page, the
        /// level after next where the cursor rests). Off, the fetcher only fetches what is on
        /// screen, when it is shown — the fetch-on-navigate baseline the benchmarks compare with.
        public var prefetch = true
        /// Whether prefetches of the next screens ask only for what those screens show (`$select`, from the
        /// profile's ``PrefetchHints/shown``); a detail screen then fetches the rest when opened.
        public var selectPrefetch = true
        /// The most entities one answer may hold, nested ones included (``PayloadDecoder/maxEntities``).
        public var maxEntitiesPerAnswer = PayloadDecoder.defaultMaxEntities

        public init(serviceRoot: String) {
            self.serviceRoot = serviceRoot
        }
    }

    /// What one screen shows and which jobs it asked for.
    struct ScreenState {
        var content: ScreenContent
        var visible: Range<Int>
        var shown: Set<String> = []
        var predicted: Set<String> = []
    }

    public nonisolated let cache: CacheDatabase
    let transport: any ODataTransport
    let clock: any SyncClock
    let random: @Sendable () -> Double
    public let configuration: Configuration
    var model: ServiceModel?
    var policy: PrefetchPolicy? {
        didSet {
            restingExpansions = [:]
            freshRests.until = [:]
        }
    }
    /// ``PrefetchPolicy/restingExpansions(forSet:)`` and ``PrefetchPolicy/nextScreenExpansions(forSet:)`` per set,
    /// worked out once for the policy: they are asked at every rest.
    var restingExpansions: [RestingExpansionKey: [String]] = [:]
    /// Rested rows found fresh, and until when, while the cache has not changed since they were read
    /// (``CacheDatabase/changeCount``): a cursor going to and fro over rows already fetched reads nothing.
    var freshRests: (changeCount: UInt64, until: [RestedRow: Date]) = (0, [:])
    var builder: ODataURLBuilder

    var queue: [FetchJob] = []
    var running: [String: (job: FetchJob, task: Task<Void, Never>)] = [:]
    var parked: [String: FetchJob] = [:]
    /// Lists whose rows asked for from the end came back none: paged forward only from then on.
    var forwardOnly: Set<ListKey> = []
    var screens: [ScreenID: ScreenState] = [:]
    var resultWaiters: [String: [CheckedContinuation<FetchResult, Never>]] = [:]
    var idleWaiters: [CheckedContinuation<Void, Never>] = []
    /// The request log's lines for outcomes that sent nothing, written together (``InstantLog``).
    let instantLog: InstantLog
    var sequence = 0
    var isOnline = true
    var probeTask: Task<Void, Never>?
    var publishedStatus: SyncStatus?
    /// What went wrong last, and when: kept as it came until the status is published, which words it.
    var lastError: (problem: SyncProblem, at: Date)?
    var lastSuccessAt: Date?
    /// Whether the service has answered anything since this engine started (``serviceAnswered(success:at:)``).
    var heardFromService = false
    /// Why URLs are not sent again by themselves (``Hold``).
    var holds: [String: Hold] = [:]
    /// When each running request went out, for the slow-request notice.
    var startedAt: [String: ContinuousClock.Instant] = [:]
    var slowWatch: Task<Void, Never>?
    var slowNotice: String?
    /// URLs a refresh (`r`) asked for that have not ended yet.
    var refreshing: Set<String> = []
    /// What reads taught about the service (kept in the cache where a later run should start from it); what writes
    /// taught is the outbox's.
    var learned: ReadFacts
    /// The write path: its own actor, made on first use with this engine to tell.
    lazy var outbox = Outbox(
        engine: self, configuration: configuration, cache: cache, transport: transport, model: model, clock: clock,
        random: random)
    /// Refreshes by delta link under way (``refresh(_:)``): work, as running jobs are.
    var deltaRefreshes = 0
    /// `:save`: the last stream saved or being saved, and its task while it runs.
    var downloads = Downloads()
    var downloadTask: Task<Void, Never>?
    /// The streams whose size is being asked (``startMeasuring(_:of:)``), by entity and stream.
    var measuring: Set<String> = []
    /// The lists whose length was asked of the `/$count` segment (``countIfUnknown(_:set:)``): once each.
    var counted: Set<ListKey> = []
    nonisolated let intents: AsyncStream<Intent>.Continuation

    public init(
        configuration: Configuration, cache: CacheDatabase, transport: any ODataTransport, model: ServiceModel? = nil,
        clock: any SyncClock = SystemClock(), random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.configuration = configuration
        self.cache = cache
        self.instantLog = InstantLog(cache: cache)
        self.transport = transport
        self.clock = clock
        self.random = random
        // What earlier runs learned about the service holds from the first request.
        let learned = ReadFacts(kept: (try? cache.serviceFacts()) ?? [])
        self.learned = learned
        let flatExpand = learned.refusesNestedExpand
        self.builder =
            model.map { ODataURLBuilder(serviceRoot: configuration.serviceRoot, model: $0, nestsExpand: !flatExpand) }
            ?? ODataURLBuilder(serviceRoot: configuration.serviceRoot)
        self.model = model
        self.policy = model.map { PrefetchPolicy(model: $0, profile: configuration.profile) }
        let (stream, continuation) = AsyncStream<Intent>.makeStream()
        self.intents = continuation
        // Writes recorded before a restart carry on, at once: a wait for a retry ended with the process that set it
        // (its service may have answered since, and nothing else may ask it anything to find out). Done here, before
        // any write this engine makes can set a wait of its own (writes are made in the order asked for, and the
        // outbox's first look at what is due is one); another live browser's waits stand.
        cache.enqueueWrite { try $0.makeWaitsOfEndedProcessesDue() }
        continuation.yield(.flushOutbox)
        // The fetcher is background work, and the tasks it starts inherit that: on Linux they run on threads at
        // nice 10, so that the keypresses of many sessions sharing a machine are not queued behind their
        // prefetches. Screens never wait on it.
        Task(priority: .background) { [weak self] in
            for await intent in stream {
                guard let self else { return }
                await self.handle(intent)
            }
        }
    }

    deinit {
        intents.finish()
        probeTask?.cancel()
        slowWatch?.cancel()
        downloadTask?.cancel()
    }

    /// Installs a service model: typed decoding, typed key literals and the prefetch policy.
    public func use(_ model: ServiceModel) async {
        self.model = model
        policy = PrefetchPolicy(model: model, profile: configuration.profile)
        builder = ODataURLBuilder(
            serviceRoot: configuration.serviceRoot, model: model, nestsExpand: !learned.refusesNestedExpand)
        await outbox.use(model)
    }

    var runner: JobRunner {
        JobRunner(
            cache: cache, transport: transport, clock: clock, random: random, retry: configuration.retry,
            decoder: PayloadDecoder(
                serviceRoot: builder.serviceRoot, model: model, maxEntities: configuration.maxEntitiesPerAnswer)
        )
    }

    /// Fetches `url` into the cache as `target` at `priority`, joining an identical
    /// request if one is queued or running, and returns how it ended. Not cancelled by screens.
    public func fetch(
        _ url: String, target: FetchTarget, priority: FetchPriority = .visible, partial: Bool = false
    ) async -> FetchResult {
        await withCheckedContinuation { continuation in
            resultWaiters[url, default: []].append(continuation)
            enqueue(url: url, target: target, priority: priority, owner: nil, partial: partial)
        }
    }

    /// Suspends until every intent sent so far is handled, nothing is queued or running, and what the ended jobs
    /// asked the cache to record (``CacheDatabase/enqueueWrite(_:then:)``) is in it. Parked (offline) jobs do not
    /// count.
    public func waitUntilIdle() async {
        await flushIntents()
        if !(queue.isEmpty && running.isEmpty && deltaRefreshes == 0) {
            await withCheckedContinuation { idleWaiters.append($0) }
        }
        await cache.writesSettled()
    }

    /// Suspends until every intent sent so far has been handled (fetches may still run).
    public func flushIntents() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            intents.yield(.barrier(continuation))
        }
    }

    /// Whether the service was reachable at the last attempt.
    public var online: Bool { isOnline }
}

/// A set, and whether a resting cursor asks its next screen alone or the level after next too.
struct RestingExpansionKey: Hashable {
    var set: String
    var nextScreenOnly: Bool
}

/// A row the cursor rested on, and whether its next screen alone was wanted (see `planResting`).
struct RestedRow: Hashable {
    var key: EntityKey
    var nextScreenOnly: Bool
}
