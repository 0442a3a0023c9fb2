import EntityCache

/// What the fetcher has learned about its service from the answers reads got (issue 34), as one value: how it takes
/// `$expand` and `$select`. The facts are kept in the cache (``ServiceFact``) and read back here by the next run.
struct ReadFacts: Equatable, Sendable {
    /// A v4 service refused an option inside `$expand`: expansions go one level deep
    /// (``ServiceFact/refusesNestedExpand``).
    var refusesNestedExpand = false
    /// It refused a `$select`: prefetches ask for whole entities (``ServiceFact/refusesSelect``).
    var refusesSelect = false

    /// The facts kept in the cache by earlier runs.
    init(kept: some Sequence<ServiceFact>) {
        let kept = Set(kept)
        refusesNestedExpand = kept.contains(.refusesNestedExpand)
        refusesSelect = kept.contains(.refusesSelect)
    }
}

/// What the ``Outbox`` has learned about how its service takes writes, from the answers they got (issue 34), as one
/// value. The facts a later run should start from are kept in the cache (``ServiceFact``) and read back here; the
/// rest hold for this process.
struct WriteFacts: Equatable, Sendable {
    /// It refused the `MERGE` verb: updates go as `POST` with `X-HTTP-Method: MERGE` (``ServiceFact/refusesMergeVerb``).
    var tunnelsMerge = false
    /// It answered a write with `Repeatability-Result`: it applies a request id once, so a create or action whose
    /// answer was lost can be sent again under its id (``ServiceFact/honoursRepeatability``).
    var honoursRepeatability = false
    /// It answered `$batch` with 404, 405 or 501: writes go one request each (``ServiceFact/refusesBatch``).
    var refusesBatch = false
    /// A v2 changeset that posted a link through the entity made before it (`$1/PersonCar`) was refused as a unit:
    /// the service may not take Content-ID references, so (in this process) the link goes after the create.
    var refusesReferences = false
    /// A v2 changeset joined that way was applied: a refusal of one is the service's word on the writes, not on the
    /// reference.
    var takesReferences = false
    /// Writes per `$batch`: the configured size, halved by each `413`.
    var batchLimit: Int

    /// The facts kept in the cache by earlier runs, and the configured batch size.
    init(kept: some Sequence<ServiceFact>, batchSize: Int) {
        let kept = Set(kept)
        honoursRepeatability = kept.contains(.honoursRepeatability)
        tunnelsMerge = kept.contains(.refusesMergeVerb)
        refusesBatch = kept.contains(.refusesBatch)
        batchLimit = max(1, batchSize)
    }
}
