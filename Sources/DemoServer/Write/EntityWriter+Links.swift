import Foundation
import GRDB
import ODataCore

/// `$links` (OData v2's links between entities), as the relations of this service allow them.
///
/// Every relation here is a foreign key on the dependent that cannot be null (a `PersonCar` always has its
/// `Person` and its `Car`), so a link is moved, never cut:
/// * `PUT` / `MERGE` / `PATCH` `Dependent(k)/$links/Nav` with `{"uri": "…/Principal(j)"}` links it to another
///   principal;
/// * `POST` `Principal(j)/$links/Nav` with `{"uri": "…/Dependent(k)"}` moves that dependent to this principal;
/// * `DELETE` of a link is a `400` saying so (delete the dependent instead);
/// * `GET` answers the URIs: `{"d": {"uri": …}}` for one, `{"d": {"results": [{"uri": …}]}}` for many.
///
/// A change moves the dependent's ETag on, and honours `Repeatability-Request-ID` as other writes do.
extension EntityWriter {
    /// One side of a relation addressed as `Source(key)/$links/Navigation[(target)]`.
    struct LinkAddress: Sendable {
        var relation: RelationSchema
        /// The entity the URL starts from.
        var source: EntitySetSchema
        var sourceKey: Int64
        /// True when the source is the dependent (a navigation to one).
        var fromDependent: Bool
        /// `Principal(j)/$links/Nav(k)`: the dependent named in the URL.
        var target: Int64?
    }

    /// The relation a `$links` URL names; a `404` when there is none.
    func linkAddress(
        source: EntitySetSchema, key: Int64, navigation: String, target: Int64?
    ) throws -> LinkAddress {
        if let relation = schema.relations.first(where: {
            $0.dependent == source.name && $0.dependentNavigation == navigation
        }) {
            guard target == nil else {
                throw ServiceError.badRequest("\(source.name).\(navigation) links one entity: no key after it.")
            }
            return LinkAddress(relation: relation, source: source, sourceKey: key, fromDependent: true, target: nil)
        }
        if let relation = schema.relations.first(where: {
            $0.principal == source.name && $0.principalNavigation == navigation
        }) {
            return LinkAddress(relation: relation, source: source, sourceKey: key, fromDependent: false, target: target)
        }
        throw ServiceError.notFound("\(source.name) has no navigation \(navigation).")
    }

    /// The keys a `GET` of the links answers (the principal's key; the dependents' keys), in key order.
    func linkedKeys(_ address: LinkAddress) async throws -> [Int64] {
        let relation = address.relation
        guard let dependent = schema.entitySet(relation.dependent) else { return [] }
        return try await writer.read { db in
            _ = try self.currentETag(address.source, key: address.sourceKey, db)  // 404 when it does not exist
            if address.fromDependent {
                return try Int64.fetchAll(
                    db,
                    sql: "SELECT \(quoted(relation.foreignKey)) FROM \(quoted(dependent.name)) "
                        + "WHERE \(quoted(dependent.key)) = ?",
                    arguments: [address.sourceKey])
            }
            var sql =
                "SELECT \(quoted(dependent.key)) FROM \(quoted(dependent.name)) WHERE \(quoted(relation.foreignKey)) = ?"
            var arguments: [any DatabaseValueConvertible] = [address.sourceKey]
            if let target = address.target {
                sql += " AND \(quoted(dependent.key)) = ?"
                arguments.append(target)
            }
            return try Int64.fetchAll(
                db, sql: sql + " ORDER BY \(quoted(dependent.key))", arguments: StatementArguments(arguments))
        }
    }

    /// Carries out a write of a link; returns its outcome (the dependent's new ETag).
    func writeLink(
        _ method: ServiceMethod, _ address: LinkAddress, body: [UInt8], requestID: String?
    ) async throws -> Outcome {
        try await writer.write(try linking(method, address, body: body, requestID: requestID))
    }

    /// The write of a link checked, as a step to run in a transaction.
    func linking(
        _ method: ServiceMethod, _ address: LinkAddress, body: [UInt8], requestID: String?
    ) throws -> @Sendable (Database) throws -> Outcome {
        if let requestID, requestID.isEmpty || requestID.utf8.count > 100 {
            throw ServiceError.badRequest("Repeatability-Request-ID is 1 to 100 characters.")
        }
        let relation = address.relation
        guard let dependent = schema.entitySet(relation.dependent), let principal = schema.entitySet(relation.principal)
        else { throw ServiceError.notFound("\(relation.name) is not served here.") }
        // (dependent key, principal key) the write sets.
        let move: (Int64, Int64)
        switch (method, address.fromDependent) {
        case (.delete, _):
            throw ServiceError.badRequest(
                "A \(dependent.name) always has its \(relation.dependentNavigation), so the link cannot be removed: "
                    + "delete the \(dependent.name), or link it to another \(principal.name).")
        case (.put, true), (.merge, true), (.patch, true):
            move = (address.sourceKey, try linkedURIKey(body, set: principal))
        case (.post, false) where address.target == nil:
            move = (try linkedURIKey(body, set: dependent), address.sourceKey)
        case (_, true):
            throw ServiceError(
                status: 405, code: "MethodNotAllowed",
                message: "\(method) does not apply to a link to one \(principal.name): PUT or MERGE {\"uri\": …}.")
        default:
            throw ServiceError(
                status: 405, code: "MethodNotAllowed",
                message: "\(method) does not apply to links to many \(dependent.name): POST {\"uri\": …} adds one.")
        }
        return { db in
            try Self.createRepeatabilityTable(db)
            if let requestID,
                let stored = try Row.fetchOne(
                    db, sql: "SELECT status, etag FROM demo_repeatability WHERE requestID = ?", arguments: [requestID])
            {
                return Outcome(status: stored["status"], etag: stored["etag"], replayed: true)
            }
            // Both ends must exist (404 for the one in the URL, 400 for the one in the body).
            _ = try self.currentETag(address.source, key: address.sourceKey, db)
            let named = address.fromDependent ? (principal, move.1) : (dependent, move.0)
            guard
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM \(quoted(named.0.name)) WHERE \(quoted(named.0.key)) = ?",
                    arguments: [named.1]) == true
            else { throw ServiceError.badRequest("\(named.0.name)(\(named.1)), named by the uri, does not exist.") }
            let previous =
                try Int64.fetchOne(
                    db,
                    sql: "SELECT \(quoted(dependent.concurrencyProperty)) FROM \(quoted(dependent.name)) "
                        + "WHERE \(quoted(dependent.key)) = ?",
                    arguments: [move.0]) ?? 0
            let stamp = max(Int64(Date().timeIntervalSince1970 * 1000), previous + 1)
            try db.execute(
                sql: "UPDATE \(quoted(dependent.name)) SET \(quoted(relation.foreignKey)) = ?, "
                    + "\(quoted(dependent.concurrencyProperty)) = ? WHERE \(quoted(dependent.key)) = ?",
                arguments: [move.1, stamp, move.0])
            let outcome = Outcome(status: 204, etag: try self.currentETag(dependent, key: move.0, db))
            if let requestID {
                try db.execute(
                    sql: "INSERT INTO demo_repeatability (requestID, status, etag, storedAt) VALUES (?, ?, ?, ?)",
                    arguments: [requestID, outcome.status, outcome.etag, Date().timeIntervalSince1970])
            }
            return outcome
        }
    }

    /// The key of the `set` entity a link body names: `{"uri": "…/Set(k)"}` (absolute or relative).
    func linkedURIKey(_ body: [UInt8], set: EntitySetSchema) throws -> Int64 {
        let object = try Self.object(of: body)
        guard case .string(let uri)? = object["uri"] else {
            throw ServiceError.badRequest("A link is {\"uri\": \"\(set.name)(1)\"}: the body has no uri.")
        }
        let last = uri.split(separator: "/").last.map(String.init) ?? uri
        guard let key = EntityKey(canonical: PercentEncoding.decode(last)), key.entitySet == set.name,
            key.values.count == 1, case .int(let number) = key.values[0].value
        else { throw ServiceError.badRequest("The uri must name a \(set.name), such as \(set.name)(1): not '\(uri)'.") }
        return number
    }
}
