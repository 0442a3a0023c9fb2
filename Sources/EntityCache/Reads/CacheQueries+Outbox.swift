import Foundation
import GRDB
import ODataCore

/// The outbox states as its SQL names them (``OutboxEntry/State/sql``).
private let failedState = OutboxEntry.State.failed.sql
private let conflictState = OutboxEntry.State.conflict.sql
private let queuedStates = OutboxEntry.State.queuedSQL

extension CacheQueries {
    static let outboxColumns = """
        id, entityKey, entitySet, kind, changes, base, baseEtag, requestID, firstSent, state, attempts, lastError,
        theirs, theirsEtag, createdAt, nextAttemptAt, listKey, parentKey, navigation, member, bindNavigation, bindKey,
        bindsNew, operation, outcomeUnknown, draft
        """

    /// Outbox entries matching `condition` (SQL after `WHERE`); rows that cannot be read are skipped.
    static func outbox(
        _ db: Database, where condition: String, arguments: StatementArguments = []
    ) throws
        -> [OutboxEntry]
    {
        try Row.fetchAll(db, sql: "SELECT \(outboxColumns) FROM outbox WHERE \(condition)", arguments: arguments)
            .compactMap(outboxEntry(from:))
    }

    static func outboxEntry(_ db: Database, id: Int64) throws -> OutboxEntry? {
        try outbox(db, where: "id = ?", arguments: [id]).first
    }

    static func outboxEntry(from row: Row) -> OutboxEntry? {
        guard let key = EntityKey(stored: row["entityKey"] as String),
            let kind = OutboxEntry.Kind(rawValue: row["kind"]), let state = OutboxEntry.State(rawValue: row["state"]),
            let changes = PropertyCodec.decode(row["changes"] as Data),
            let base = PropertyCodec.decode(row["base"] as Data)
        else { return nil }
        let theirs: Data? = row["theirs"]
        let firstSent: Double? = row["firstSent"]
        let nextAttemptAt: Double? = row["nextAttemptAt"]
        let listKey: String? = row["listKey"]
        let parentKey: String? = row["parentKey"]
        let member: String? = row["member"]
        let bindKey: String? = row["bindKey"]
        let bindNavigation: String? = row["bindNavigation"]
        let navigation: String? = row["navigation"]
        let parent = parentKey.flatMap { EntityKey(stored: $0) }
        let shownIn =
            listKey == nil && parentKey == nil
            ? nil
            : ShownIn(
                list: listKey.map(ListKey.init(canonical:)), parent: parent, navigation: navigation,
                member: member.flatMap { EntityKey(stored: $0) })
        let write: OutboxEntry.Write
        switch kind {
        case .update:
            write = .update
        case .delete:
            write = .delete(shownIn: shownIn)
        case .create:
            let target = bindKey.flatMap { EntityKey(stored: $0) }
            write = .create(
                shownIn: shownIn,
                binding: bindNavigation.flatMap { navigation in
                    target.map { .init(navigation: navigation, target: $0, madeTogether: row["bindsNew"]) }
                },
                draft: (row["draft"] as String?).flatMap { EntityKey(stored: $0) })
        case .unlink:
            // (written with both by ``CacheWriter/enqueueUnlink(_:parent:navigation:requestID:at:)``)
            if let parent, let navigation {
                write = .unlink(parent: parent, navigation: navigation)
            } else {
                write = .incomplete(.unlink)
            }
        case .action:
            let operation: String? = row["operation"]
            write = operation.map { .action(operation: $0) } ?? .incomplete(.action)
        }
        return OutboxEntry(
            id: row["id"], entityKey: key, entitySet: row["entitySet"], write: write, changes: changes, base: base,
            baseEtag: row["baseEtag"], requestID: row["requestID"],
            firstSent: firstSent.map(Date.init(timeIntervalSince1970:)),
            state: state, attempts: row["attempts"], lastError: row["lastError"],
            theirs: theirs.flatMap { PropertyCodec.decode($0) }, theirsEtag: row["theirsEtag"],
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            nextAttemptAt: nextAttemptAt.map(Date.init(timeIntervalSince1970:)), outcomeUnknown: row["outcomeUnknown"]
        )
    }

    static func nextOutboxAttempt(_ db: Database) throws -> Date? {
        try Double.fetchOne(
            db,
            sql: """
                SELECT MIN(nextAttemptAt) FROM outbox
                WHERE state = \(OutboxEntry.State.pending.sql) AND nextAttemptAt IS NOT NULL
                """
        ).map(Date.init(timeIntervalSince1970:))
    }

    static func outboxCounts(_ db: Database) throws -> OutboxCounts {
        let failing =
            "state IN \(queuedStates) AND attempts >= \(OutboxCounts.failingAfter) AND lastError IS NOT NULL"
        let row = try Row.fetchOne(
            db,
            sql: """
                SELECT coalesce(sum(state IN \(queuedStates)), 0), coalesce(sum(state IN (\(failedState), \(conflictState))), 0),
                    coalesce(sum(\(failing)), 0),
                    (SELECT lastError FROM outbox WHERE \(failing) ORDER BY id DESC LIMIT 1)
                FROM outbox
                """
        )
        return OutboxCounts(
            pending: row?[0] ?? 0, failed: row?[1] ?? 0, failing: row?[2] ?? 0, failingError: row?[3])
    }
}

extension CacheDatabase {
    /// Every write not yet settled, in the order made.
    public func outboxEntries() throws -> [OutboxEntry] {
        try read { try CacheQueries.outbox($0, where: "1 ORDER BY id") }
    }

    /// When the earliest write waiting for a retry is due; nil when none waits.
    public func nextOutboxAttempt() throws -> Date? {
        try read { try CacheQueries.nextOutboxAttempt($0) }
    }

    /// One write not yet settled, by its id.
    public func outboxEntry(_ id: Int64) throws -> OutboxEntry? {
        try read { try CacheQueries.outboxEntry($0, id: id) }
    }

    /// How many writes are queued, and how many wait for the user.
    public func outboxCounts() throws -> OutboxCounts {
        try read { try CacheQueries.outboxCounts($0) }
    }

    /// Observes ``outboxEntries()``.
    @MainActor
    public func observeOutbox(
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor ([OutboxEntry]) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.outbox($0, where: "1 ORDER BY id") }, onError: onError, onChange: onChange)
    }

    /// Observes ``outboxCounts()``.
    @MainActor
    public func observeOutboxCounts(
        onError: @escaping @MainActor (Error) -> Void = { _ in },
        onChange: @escaping @MainActor (OutboxCounts) -> Void
    ) -> CacheObservation {
        observe({ try CacheQueries.outboxCounts($0) }, onError: onError, onChange: onChange)
    }
}
