import Foundation
import GRDB
import ODataCore

/// Creating entities (issue 13), in either dialect, as OData servers do.
///
/// * `POST /Set` with the properties; the key is the service's to give when the body leaves it out (or sends 0).
///   A link entity names the entities it links as navigation bindings:
///   `"Car": {"__metadata": {"uri": "Car(7)"}}` (a URI relative to the service root, or absolute).
/// * `POST /Parent(k)/Navigation` creates the entity linked to `Parent(k)` through that navigation.
/// * Every property must be given (they are all `Nullable="false"`), but for the key and the concurrency stamp.
/// * The answer is `201 Created` with the entity (`{"d": {…}}`), its `Location` and its `ETag`. A replayed
///   `Repeatability-Request-ID` answers with the entity the first request made, and makes nothing.
extension EntityWriter {
    /// Where a create is linked from: `POST /Parent(k)/Navigation`.
    struct CreateParent: Sendable {
        var relation: RelationSchema
        var principalKey: Int64
    }

    /// Makes the entity a body describes; returns its key (and whether the request id was seen before).
    func create(
        set: EntitySetSchema, body: [UInt8], parent: CreateParent?, requestID: String?
    ) async throws -> (key: Int64, replayed: Bool) {
        try await writer.write(try creating(set: set, body: body, parent: parent, requestID: requestID))
    }

    /// The create checked (a `400` for a bad body), as a step to run in a transaction.
    func creating(
        set: EntitySetSchema, body: [UInt8], parent: CreateParent?, requestID: String?
    ) throws -> @Sendable (Database) throws -> (key: Int64, replayed: Bool) {
        if let requestID, requestID.isEmpty || requestID.utf8.count > 100 {
            throw ServiceError.badRequest("Repeatability-Request-ID is 1 to 100 characters.")
        }
        let object = try Self.object(of: body)
        var values: [String: DatabaseValue] = [:]
        var links: [String: Int64] = [:]
        var givenKey: Int64?
        for member in object.members where member.key != "__metadata" && !member.key.hasPrefix("@") {
            var name = member.key
            let value = member.value
            // v4 binds with `"Car@odata.bind": "Car(7)"` (``bindingKey(_:navigation:principal:)`` takes the string).
            let bound = name.hasSuffix("@odata.bind")
            if bound { name = String(name.dropLast("@odata.bind".count)) }
            if let relation = schema.relations.first(where: {
                $0.dependent == set.name && $0.dependentNavigation == name
            }) {
                links[relation.foreignKey] = try bindingKey(
                    value, navigation: name, principal: relation.principal, version4: bound)
                continue
            }
            if schema.relations.contains(where: { $0.principal == set.name && $0.principalNavigation == name }) {
                throw ServiceError.badRequest(
                    "\(set.name) is created alone: \(name) cannot be created with it (no deep insert here).")
            }
            guard let property = set.property(name) else {
                throw ServiceError.badRequest("\(set.name) has no property \(name).")
            }
            if name == set.concurrencyProperty { continue }
            if name == set.key {
                if case .null = value { continue }
                let stored = try Self.storedValue(value, for: property, in: set)
                if let number = Int64.fromDatabaseValue(stored), number != 0 { givenKey = number }
                continue
            }
            values[name] = try Self.storedValue(value, for: property, in: set)
        }
        if let parent {
            links[parent.relation.foreignKey] = parent.principalKey
        }
        for property in set.properties
        where property.name != set.key && property.name != set.concurrencyProperty && values[property.name] == nil {
            throw ServiceError.badRequest("\(property.name) is required: \(set.name) needs a value for it.")
        }
        for relation in schema.relations where relation.dependent == set.name && links[relation.foreignKey] == nil {
            throw ServiceError.badRequest(
                "\(set.name) needs its \(relation.dependentNavigation): bind one with "
                    + "\"\(relation.dependentNavigation)\": {\"__metadata\": {\"uri\": \"\(relation.principal)(1)\"}}, "
                    + "or POST to \(relation.principal)(1)/\(relation.principalNavigation).")
        }
        let (resolvedLinks, resolvedKey, resolvedValues) = (links, givenKey, values)
        return { db in
            try Self.createRepeatabilityTable(db)
            if let requestID,
                let stored = try Row.fetchOne(
                    db, sql: "SELECT status, etag FROM demo_repeatability WHERE requestID = ?", arguments: [requestID])
            {
                let created: String? = stored["etag"]
                guard let created, let key = Int64(created.dropFirst("created:".count)) else {
                    throw ServiceError.badRequest("Repeatability-Request-ID \(requestID) was used by another request.")
                }
                return (key, true)
            }
            for (foreignKey, key) in resolvedLinks {
                guard let relation = self.schema.relations.first(where: { $0.foreignKey == foreignKey }),
                    let principal = self.schema.entitySet(relation.principal)
                else { continue }
                guard
                    try Bool.fetchOne(
                        db,
                        sql: "SELECT 1 FROM \(quoted(principal.name)) WHERE \(quoted(principal.key)) = ?",
                        arguments: [key]) == true
                else {
                    throw ServiceError.badRequest(
                        "\(principal.name)(\(key)), named by \(relation.dependentNavigation), does not exist.")
                }
            }
            let key: Int64
            if let givenKey = resolvedKey {
                guard
                    try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM \(quoted(set.name)) WHERE \(quoted(set.key)) = ?",
                        arguments: [givenKey]) != true
                else {
                    throw ServiceError(
                        status: 409, code: "Conflict", message: "\(set.name)(\(givenKey)) exists already.")
                }
                key = givenKey
            } else {
                key =
                    (try Int64.fetchOne(db, sql: "SELECT max(\(quoted(set.key))) FROM \(quoted(set.name))") ?? 0) + 1
            }
            var columns: [String: DatabaseValue] = resolvedValues
            for (foreignKey, principalKey) in resolvedLinks { columns[foreignKey] = principalKey.databaseValue }
            columns[set.key] = key.databaseValue
            columns[set.concurrencyProperty] = Int64(Date().timeIntervalSince1970 * 1000).databaseValue
            let names = columns.keys.sorted()
            try db.execute(
                sql: "INSERT INTO \(quoted(set.name)) (\(names.map(quoted).joined(separator: ", "))) "
                    + "VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(names.map { columns[$0]! }))
            if let requestID {
                // A create's outcome is the key it made (the `etag` column of the table, marked).
                try db.execute(
                    sql: "INSERT INTO demo_repeatability (requestID, status, etag, storedAt) VALUES (?, 201, ?, ?)",
                    arguments: [requestID, "created:\(key)", Date().timeIntervalSince1970])
            }
            return (key, false)
        }
    }

    /// The key a navigation binding names: `{"__metadata": {"uri": "…/Principal(k)"}}`, or v4's `"…/Principal(k)"`.
    func bindingKey(_ value: JSONValue, navigation: String, principal: String, version4: Bool = false) throws -> Int64 {
        let bound: String?
        if version4, case .string(let text) = value {
            bound = text
        } else if case .string(let text)? = value["__metadata"]?["uri"] {
            bound = text
        } else {
            bound = nil
        }
        guard let uri = bound else {
            throw ServiceError.badRequest(
                "\(navigation) binds an existing \(principal): {\"__metadata\": {\"uri\": \"\(principal)(1)\"}}.")
        }
        let last = uri.split(separator: "/").last.map(String.init) ?? uri
        guard let key = EntityKey(canonical: PercentEncoding.decode(last)), key.entitySet == principal,
            key.values.count == 1, case .int(let number) = key.values[0].value
        else {
            throw ServiceError.badRequest("\(navigation) must name a \(principal) by its URI, such as \(principal)(1).")
        }
        return number
    }
}
