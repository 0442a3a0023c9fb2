import EntityCache
import Foundation
import ODataCore

/// Turns one decoded response into flat cache rows, inside the caller's transaction.
///
/// * Every entity with a key (nested `$expand` included) becomes one `entity` upsert;
///   entities without a key cannot be referred to and are skipped.
/// * A partial response (`$select`) merges into known fields and never erases them: the whole response when
///   `partial`, or the entities of `partialSets` in it (a page whose own rows are whole while its expansions
///   were cut to what the next screen shows). `partialSets` maps each such set to the properties a whole entity
///   of it carries: one that carries them all (a service that ignored the cut) is taken as whole.
/// * An expanded to-many replaces that relation's positions; an expanded to-one is a
///   one-row relation; `null` clears it (known, empty); `__deferred` leaves it as it
///   was — unknown if never fetched, not empty.
/// * A list page writes its positions, `__count` and `__next`.
public struct Normaliser: Sendable {
    public init() {}

    /// What one response wrote.
    public struct Summary: Sendable, Hashable {
        /// Entities upserted (nested ones included).
        public var entities = 0
        /// Relations replaced.
        public var relations = 0
        /// Navigations the request expanded that the server answered `__deferred`: still unknown, to be
        /// fetched by their own URL (`Person(1)/PersonCar`).
        public var deferred: [DeferredNavigation] = []
        /// Why paging stopped early, in words: a next page that repeats rows already listed.
        public var pagingStopped: String?
        /// Rows asked for from a list's end came back none: the service does not page that way (or the list
        /// shrank to nothing there), so that list is paged forward from now on.
        public var tailGaveNoRows = false
    }

    /// A navigation of an entity that an `$expand` asked for and the server did not expand.
    public struct DeferredNavigation: Sendable, Hashable {
        public var parent: EntityKey
        public var navigation: String
    }

    /// Files `payload` for `target` at `date`.
    @discardableResult
    public func write(
        _ payload: ODataPayload, for target: FetchTarget, partial: Bool, partialSets: [String: Set<String>] = [:],
        at date: Date,
        requestedAt: Date? = nil, into session: CacheWriter
    ) throws -> Summary {
        let partial = Shape(all: partial, sets: partialSets)
        var summary = Summary()
        switch (target, payload) {
        case (.listPage(let key, _, let offset, let top), .collection(let collection)):
            let pageKeys = collection.entities.compactMap(\.key)
            if offset > 0, !pageKeys.isEmpty, try session.listHoldsAll(key, entityKeys: pageKeys, before: offset) {
                // A next link that leads back (to itself, or round a cycle) brings only rows already listed:
                // storing them again would grow the list without end. The list ends where it was.
                try session.writeListPage(
                    key, offset: offset, entityKeys: [], totalCount: nil, nextLink: nil, isLastPage: true, at: date
                )
                summary.pagingStopped =
                    "the server's next page repeats rows already listed, so paging stopped after \(offset) rows"
                return summary
            }
            let keys = try collection.entities.compactMap {
                try write($0, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary)
            }
            let short = top.map { collection.entities.count < $0 } ?? true
            // A `__next` page whose `$top` ran out ends short without a next link, yet `__count`
            // may say the list goes on: only a page that reaches the count (or has none) is the last.
            let countSaysMore = collection.count.map { Int($0) > offset + keys.count } ?? false
            try session.writeListPage(
                key, offset: offset, entityKeys: keys, totalCount: collection.count.map { Int($0) },
                nextLink: collection.nextLink, isLastPage: collection.nextLink == nil && short && !countSaysMore,
                at: date, requestedAt: requestedAt
            )
        case (.listTail(let key, _, let skipFromEnd, let plannedTotal), .collection(let collection)):
            // The rows came last first: the first is at (length - 1 - skip). The length is the one this answer
            // carries, so rows land where the list has them now even if it changed since the plan.
            let keys = try collection.entities.compactMap {
                try write($0, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary)
            }
            guard !keys.isEmpty else {
                if let count = collection.count.map({ Int($0) }), count <= skipFromEnd {
                    // The list shrank to end before these rows: its new length is the news, not a service that
                    // cannot page backwards.
                    try session.writeListPage(
                        key, offset: count, entityKeys: [], totalCount: count, nextLink: nil, isLastPage: false,
                        at: date, requestedAt: requestedAt)
                } else {
                    summary.tailGaveNoRows = true
                }
                break
            }
            let total = collection.count.map { Int($0) } ?? plannedTotal
            let end = total - skipFromEnd
            let start = end - keys.count
            guard start >= 0, end <= total else { break }
            try session.writeListPage(
                key, offset: start, entityKeys: keys.reversed(), totalCount: total, nextLink: nil, isLastPage: false,
                at: date, requestedAt: requestedAt)
        case (.entity(_, let expanded), .entity(let entity)):
            let requested = expanded.map { $0.split(separator: "/").map(String.init) }
            _ = try write(
                entity, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary,
                requested: requested)
        case (.relation(let parent, let navigation, _), _):
            var children: [EntityKey] = []
            switch payload {
            case .collection(let collection):
                children = try collection.entities.compactMap {
                    try write(
                        $0, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary)
                }
            case .entity(let entity):
                children =
                    try write(
                        entity, partial: partial, at: date, requestedAt: requestedAt, session: session,
                        summary: &summary
                    )
                    .map { [$0] } ?? []
            case .value:
                children = []
            }
            try session.replaceRelation(
                parent: parent, navigation: navigation, children: children, at: date, requestedAt: requestedAt)
            summary.relations += 1
        case (.call(let key, _), _):
            try writeCall(
                payload, key: key, partial: partial, at: date, requestedAt: requestedAt, session: session,
                summary: &summary)
        default:
            throw ODataError(kind: .malformedPayload, message: "the answer does not have the expected shape")
        }
        return summary
    }

    /// Files a delta answer for `list` (issue 34): changed entities upserted, those it says left the list removed
    /// (rows and count), and its delta link kept for next time. Returns whether every changed entity is a row of
    /// the list already: otherwise a new one belongs somewhere in it, which only a read of its pages can say.
    public func writeDelta(
        _ collection: ODataCollection, list: ListKey, resolvedLink: String?, at date: Date,
        into session: CacheWriter
    ) throws -> Bool {
        var summary = Summary()
        var written: [EntityKey] = []
        for entity in collection.entities {
            guard
                let key = try write(
                    entity, partial: Shape(all: false, sets: [:]), at: date, requestedAt: date, session: session,
                    summary: &summary)
            else { continue }
            written.append(key)
        }
        let listed = try session.listHolding(written, in: list)
        try session.removeFromList(collection.removed, list: list)
        try session.setDeltaLink(resolvedLink, for: list, at: date)
        return written.allSatisfy { listed.contains($0.canonical) }
    }

    /// Files what a function answered (``FetchTarget/call(_:entitySet:)``): an entity with a key is cached as any
    /// entity and named; anything else is a value, kept as plain JSON — v2 wraps a value in an object of one property
    /// named after the function (`{"d": {"TotalCost": "12.50"}}`), which is unwrapped; a record of several is a
    /// complex value.
    func writeCall(
        _ payload: ODataPayload, key: ListKey, partial: Shape, at date: Date, requestedAt: Date?,
        session: CacheWriter, summary: inout Summary
    ) throws {
        // (an entity without a key is a value: its one property, or a record of them)
        func value(of entity: ODataEntity) -> ODataValue {
            let values = entity.properties.filter { !$0.isInstanceAnnotation }
            return values.count == 1 ? values[0].value : .complex(values)
        }
        switch payload {
        case .entity(let entity) where entity.key != nil:
            // (as any read: a copy read before a write of mine settled does not undo it on screen)
            let written = try write(
                entity, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary)
            try session.writeCallResult(key.canonical, entityKey: written, value: nil, at: date)
        case .entity(let entity):
            try session.writeCallResult(
                key.canonical, entityKey: nil, value: PlainJSON.value(value(of: entity)), at: date)
        case .value(let value):
            try session.writeCallResult(key.canonical, entityKey: nil, value: PlainJSON.value(value), at: date)
        case .collection(let collection):
            // (a collection of values, or of entities: kept as the values it holds)
            let values = collection.entities.map(value(of:))
            try session.writeCallResult(
                key.canonical, entityKey: nil, value: PlainJSON.value(.collection(values)), at: date)
        }
    }

    /// Which entities of a response are partial: all, or those of some entity sets.
    struct Shape {
        var all: Bool
        var sets: [String: Set<String>]

        func isPartial(_ entity: ODataEntity, in set: String) -> Bool {
            if all { return true }
            guard let whole = sets[set] else { return false }
            var present = 0
            for property in entity.properties where whole.contains(property.name) { present += 1 }
            return present < whole.count
        }
    }

    /// Writes one entity and its expanded navigations; returns its key.
    ///
    /// `requested` are the `$expand` paths below this entity: a first segment the server left `__deferred` is
    /// noted in the summary (once per parent and navigation).
    func write(
        _ entity: ODataEntity, partial: Shape, at date: Date, requestedAt: Date? = nil, session: CacheWriter,
        summary: inout Summary,
        requested: [[String]] = []
    ) throws -> EntityKey? {
        guard let key = entity.key else { return nil }
        try session.upsertEntity(
            key: key, entitySet: key.entitySet, type: entity.metadata.type, properties: entity.properties,
            etag: entity.metadata.etag, at: date, partial: partial.isPartial(entity, in: key.entitySet),
            requestedAt: requestedAt
        )
        summary.entities += 1
        for link in entity.navigations {
            let children: [EntityKey]
            let below = requested.filter { $0.first == link.name }.map { Array($0.dropFirst()) }.filter { !$0.isEmpty }
            switch link.content {
            case .deferred:
                if requested.contains(where: { $0.first == link.name }) {
                    summary.deferred.append(DeferredNavigation(parent: key, navigation: link.name))
                }
                continue
            case .null:
                children = []
            case .entity(let child):
                children =
                    try write(
                        child, partial: partial, at: date, requestedAt: requestedAt, session: session,
                        summary: &summary, requested: below
                    )
                    .map { [$0] } ?? []
            case .collection(let collection):
                children = try collection.entities.compactMap {
                    try write(
                        $0, partial: partial, at: date, requestedAt: requestedAt, session: session, summary: &summary,
                        requested: below)
                }
            }
            try session.replaceRelation(
                parent: key, navigation: link.name, children: children, at: date, requestedAt: requestedAt)
            summary.relations += 1
        }
        return key
    }
}
