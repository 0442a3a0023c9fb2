import EntityCache
import Foundation
import ODataCore

/// The write path, as an actor of its own (issue 34): it owns flushing the outbox the cache keeps, what it learned
/// about how the service takes writes, and the wait for the next retry; requests go out through a ``WriteRunner``,
/// off the actor. The ``SyncEngine`` in front records what screens ask in the order made and tells it to flush; it
/// is told back what a write's answer says about the service (there, offline, a read to make) and keeps the
/// connectivity and status that reads and writes share.
///
/// Nothing here runs between the engine's flag reads: the fetch queue and the outbox suspend on the network each in
/// their own actor.
actor Outbox {
    let cache: CacheDatabase
    let clock: any SyncClock
    let random: @Sendable () -> Double
    let configuration: SyncEngine.Configuration
    let transport: any ODataTransport
    /// The engine told of answers and failures; weak, as it owns this outbox.
    weak var engine: SyncEngine?
    var model: ServiceModel?
    var builder: ODataURLBuilder
    /// What writes taught about the service (kept in the cache where a later run should start from it).
    var learned: WriteFacts
    /// The flush under way, whether it should look again when it ends, and the wait for the next retry.
    var flushTask: Task<Void, Never>?
    var again = false
    var timer: Task<Void, Never>?
    /// Request log lines of writes whose answers were read, written with the next change the outbox makes (what the
    /// answer settled, refused or put off), in its transaction (``record(_:)``).
    var unwrittenLog: [RequestLogEntry] = []
    /// The drafts made (or resumed) while a form is open on their active entities, by the active entity's canonical
    /// key (``openDraft(of:etag:)``): a change saved from that form is sent to the draft without making it again.
    var openDrafts: [String: EntityKey] = [:]
    /// The draft work last asked for on each active entity, by its canonical key (``queueDraftWork(on:_:)``): the
    /// next waits for it, and so does a change of that entity sent through its draft.
    var draftWork: [String: (number: Int, task: Task<Void, Never>)] = [:]
    /// Numbers ``draftWork``'s entries, so that one ending removes only itself.
    var draftWorkNumber = 0

    init(
        engine: SyncEngine, configuration: SyncEngine.Configuration, cache: CacheDatabase,
        transport: any ODataTransport, model: ServiceModel?, clock: any SyncClock,
        random: @escaping @Sendable () -> Double
    ) {
        self.engine = engine
        self.configuration = configuration
        self.cache = cache
        self.transport = transport
        self.clock = clock
        self.random = random
        self.model = model
        self.builder = Self.builder(configuration.serviceRoot, model)
        learned = WriteFacts(kept: (try? cache.serviceFacts()) ?? [], batchSize: configuration.writeBatchSize)
    }

    /// (A flush under way holds the outbox, and runs to its end when the engine has gone: what it learns about the
    /// service then is told to nobody. The timer holds it weakly.)
    deinit {
        timer?.cancel()
    }

    /// Write URLs name entities and sets only: how the service takes `$expand` does not matter to them.
    static func builder(_ serviceRoot: String, _ model: ServiceModel?) -> ODataURLBuilder {
        model.map { ODataURLBuilder(serviceRoot: serviceRoot, model: $0) } ?? ODataURLBuilder(serviceRoot: serviceRoot)
    }

    /// Installs a service model: typed keys and bodies, operations, the dialect.
    func use(_ model: ServiceModel) {
        self.model = model
        builder = Self.builder(configuration.serviceRoot, model)
    }

    /// Sends requests and reads answers, off this actor.
    var runner: WriteRunner {
        WriteRunner(
            transport: transport,
            decoder: PayloadDecoder(
                serviceRoot: builder.serviceRoot, model: model, maxEntities: configuration.maxEntitiesPerAnswer),
            builder: builder, dialect: model?.dialect)
    }

    /// Whether a flush is under way.
    var isFlushing: Bool { flushTask != nil }

    /// Makes every queued write due at once and sends them (the service is back).
    func sendQueuedNow() async {
        try? await cache.write { try $0.makeQueuedWritesDue() }
        flush()
    }

    /// Sends what is due, unless a flush is already under way (it looks again when it ends).
    func flush() {
        guard flushTask == nil else {
            again = true
            return
        }
        flushTask = Task { await self.drain() }
    }

    /// Sends every due write until none is due, in `$batch`es of up to `writeBatchSize` (``sendBatch(_:)``), or where
    /// the service takes none, up to `maxConcurrentWrites` requests at once; then waits for the next retry.
    func drain() async {
        repeat {
            again = false
            while !Task.isCancelled {
                let now = clock.now()
                let batches = batchesWrites
                let limit =
                    batches
                    ? learned.batchLimit * max(1, configuration.maxConcurrentBatches)
                    : configuration.maxConcurrentWrites
                let claimant = cache.claimant
                guard
                    let due = try? await cache.write({
                        try $0.dueOutboxEntries(at: now, limit: limit, claimant: claimant)
                    }), !due.isEmpty
                else { break }
                if batches {
                    let size = learned.batchLimit
                    await withTaskGroup(of: Void.self) { group in
                        for start in stride(from: 0, to: due.count, by: size) {
                            let part = Array(due[start..<min(due.count, start + size)])
                            group.addTask { await self.sendBatch(part) }
                        }
                    }
                    continue
                }
                await withTaskGroup(of: Void.self) { group in
                    for entry in due { group.addTask { await self.send(entry) } }
                }
            }
            // (lines a failed transaction left; a flush asked for meanwhile is looked at below)
            if !unwrittenLog.isEmpty { await record { _ in } }
        } while again && !Task.isCancelled
        flushTask = nil
        scheduleRetry()
    }

    /// Runs `body` in one cache transaction with the request log lines not yet written (those of the answers read
    /// since the last one, this write's among them): the log costs no transaction of its own. Lines whose
    /// transaction failed wait for the next one, and a drain writes what is left before it ends.
    func record(_ body: @escaping @Sendable (CacheWriter) throws -> Void) async {
        _ = await recording(body)
    }

    /// ``record(_:)``, answering what `body` does; nil when its transaction failed.
    @discardableResult
    func recording<T: Sendable>(_ body: @escaping @Sendable (CacheWriter) throws -> T) async -> T? {
        let lines = unwrittenLog
        unwrittenLog = []
        do {
            return try await cache.write { session in
                for line in lines { try session.appendRequestLog(line) }
                return try body(session)
            }
        } catch {
            unwrittenLog.insert(contentsOf: lines, at: 0)
            return nil
        }
    }

    /// Wakes the outbox when the earliest write waiting for a retry is due.
    func scheduleRetry() {
        timer?.cancel()
        guard let due = try? cache.nextOutboxAttempt() else { return }
        let wait = max(0, due.timeIntervalSince(clock.now()))
        let clock = self.clock
        timer = Task { [weak self] in
            try? await clock.sleep(seconds: wait)
            guard !Task.isCancelled else { return }
            await self?.flush()
        }
    }
}

/// One write's request and the reads a write's answer calls for, sent off the ``Outbox``'s actor (the twin of
/// ``JobRunner`` for reads): the outbox suspends on the network here, not between its own flag reads.
struct WriteRunner: Sendable {
    let transport: any ODataTransport
    let decoder: PayloadDecoder
    let builder: ODataURLBuilder
    let dialect: ODataDialect?

    /// One request's answer, or why none came.
    func exchange(_ request: TransportRequest) async -> Result<TransportResponse, any Error> {
        do {
            return .success(try await transport.send(request))
        } catch {
            return .failure(error)
        }
    }

    /// The service's copy of an entity now: its values and version; nil when it cannot be had.
    func read(_ key: EntityKey) async -> (copy: [ODataProperty], etag: String?)? {
        let url = builder.url(ResourcePath(key), QueryOptions())
        guard case .success(let response) = await exchange(TransportRequest(url: url, dialect: dialect)),
            response.status == 200, let copy = decodedCopy(response.body, entitySet: key.entitySet)
        else { return nil }
        return (copy, response.etag ?? etagInBody(response.body))
    }

    /// The properties of an entity answer (`{"d":{…}}`), typed by the model.
    func decodedCopy(_ body: [UInt8], entitySet: String) -> [ODataProperty]? {
        guard !body.isEmpty, case .entity(let entity)? = try? decoder.decode(body, entitySet: entitySet) else {
            return nil
        }
        return entity.properties
    }

    func etagInBody(_ body: [UInt8]) -> String? {
        guard case .entity(let entity)? = try? decoder.decode(body) else { return nil }
        return entity.metadata.etag
    }
}
