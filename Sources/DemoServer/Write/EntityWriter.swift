import Foundation
import GRDB
import ODataCore

/// Changes and deletes entities of the demo service, in either dialect, as OData servers do (issue 13).
///
/// * `MERGE` / `PATCH` set the properties a body names; `PUT` also sets every other one to null. The key may be
///   sent only with its value; the concurrency property (the weak ETag) is the service's: any value sent is
///   ignored, and every write moves it on, so the ETag changes.
/// * `If-Match`: `*` matches any entity; another value that is not the entity's ETag is a `412`.
/// * `DELETE` takes the link entities that refer to the entity with it (and theirs, down the relations).
/// * `Repeatability-Request-ID` (OData 4.01): the outcome of a write is kept with its id, in the same
///   transaction; the same id again gets that outcome and changes nothing.
/// * Bad input is a `400` naming the property and the rule.
struct EntityWriter: Sendable {
    let schema: ServiceSchema
    let writer: DatabasePool

    /// The largest body accepted.
    static let maximumBodyBytes = 1 << 20

    /// What a write answered: its status and the entity's new ETag.
    struct Outcome: Sendable {
        var status: Int
        var etag: String?
        /// A replay of a request id seen before.
        var replayed = false
    }

    enum Change {
        case merge
        case replace
        case delete
    }

    func write(
        _ change: Change, set: EntitySetSchema, key: Int64, body: [UInt8], ifMatch: String?, requestID: String?
    ) async throws -> Outcome {
        try await writer.write(
            try writing(change, set: set, key: key, body: body, ifMatch: ifMatch, requestID: requestID))
    }

    /// The write checked (a `400` for a bad body), as a step to run in a transaction: alone, or with the rest of
    /// a `$batch` changeset.
    func writing(
        _ change: Change, set: EntitySetSchema, key: Int64, body: [UInt8], ifMatch: String?, requestID: String?
    ) throws -> @Sendable (Database) throws -> Outcome {
        if let requestID, requestID.isEmpty || requestID.utf8.count > 100 {
            throw ServiceError.badRequest("Repeatability-Request-ID is 1 to 100 characters.")
        }
        let values =
            change == .delete ? [:] : try Self.values(of: body, for: set, key: key, replace: change == .replace)
        return { db in
            try Self.createRepeatabilityTable(db)
            if let requestID,
                let stored = try Row.fetchOne(
                    db, sql: "SELECT status, etag FROM demo_repeatability WHERE requestID = ?", arguments: [requestID])
            {
                return Outcome(status: stored["status"], etag: stored["etag"], replayed: true)
            }
            try self.checkIfMatch(ifMatch, set, key: key, db)
            var outcome: Outcome
            switch change {
            case .delete:
                try self.delete(set, key: key, db)
                outcome = Outcome(status: 204, etag: nil)
            case .merge, .replace:
                var assignments = values
                let previous =
                    try Int64.fetchOne(
                        db,
                        sql:
                            "SELECT \(quoted(set.concurrencyProperty)) FROM \(quoted(set.name)) WHERE \(quoted(set.key)) = ?",
                        arguments: [key]) ?? 0
                let stamp = max(Int64(Date().timeIntervalSince1970 * 1000), previous + 1)
                assignments[set.concurrencyProperty] = stamp.databaseValue
                let columns = assignments.keys.sorted()
                try db.execute(
                    sql:
                        "UPDATE \(quoted(set.name)) SET \(columns.map { quoted($0) + " = ?" }.joined(separator: ", ")) "
                        + "WHERE \(quoted(set.key)) = ?",
                    arguments: StatementArguments(columns.map { assignments[$0]! } + [key.databaseValue]))
                outcome = Outcome(status: 204, etag: try self.currentETag(set, key: key, db))
            }
            if let requestID {
                try db.execute(
                    sql: "INSERT INTO demo_repeatability (requestID, status, etag, storedAt) VALUES (?, ?, ?, ?)",
                    arguments: [requestID, outcome.status, outcome.etag, Date().timeIntervalSince1970])
                try db.execute(
                    sql: "DELETE FROM demo_repeatability WHERE storedAt < ?",
                    arguments: [Date().timeIntervalSince1970 - 86_400])
            }
            return outcome
        }
    }

    /// A `412` unless `ifMatch` is absent, `*`, or names the entity's current ETag.
    func checkIfMatch(_ ifMatch: String?, _ set: EntitySetSchema, key: Int64, _ db: Database) throws {
        let current = try currentETag(set, key: key, db)
        guard let ifMatch, ifMatch.trimmingCharacters(in: .whitespaces) != "*",
            !ifMatch.split(separator: ",").contains(where: { Self.sameTag($0, current) })
        else { return }
        throw ServiceError(
            status: 412, code: "PreconditionFailed",
            message: "\(set.name)(\(key)) was changed since it was read (its ETag is now \(current)).")
    }

    static func createRepeatabilityTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS demo_repeatability (
                    requestID TEXT PRIMARY KEY NOT NULL, status INTEGER NOT NULL, etag TEXT, storedAt DOUBLE NOT NULL)
                """)
    }

    /// The entity's weak ETag, as responses carry it; 404 when there is no such entity.
    func currentETag(_ set: EntitySetSchema, key: Int64, _ db: Database) throws -> String {
        guard let property = set.property(set.concurrencyProperty),
            let stored = try DatabaseValue.fetchOne(
                db,
                sql: "SELECT \(quoted(set.concurrencyProperty)) FROM \(quoted(set.name)) WHERE \(quoted(set.key)) = ?",
                arguments: [key])
        else { throw ServiceError.notFound("\(set.name)(\(key)) does not exist.") }
        let literal = ODataLiteral.format(property.type.odataValue(stored), as: property.type.edm) ?? "null"
        return "W/\"" + literal + "\""
    }

    static func sameTag(_ sent: Substring, _ current: String) -> Bool {
        let strip = { (tag: Substring) -> Substring in
            let trimmed = tag.trimmingCharacters(in: " ")
            return trimmed.hasPrefix("W/") ? Substring(trimmed.dropFirst(2)) : Substring(trimmed)
        }
        return strip(sent) == strip(Substring(current))
    }

    /// Deletes the entity and, down the relations, the dependents that refer to it.
    func delete(_ set: EntitySetSchema, key: Int64, _ db: Database) throws {
        for relation in schema.relations where relation.principal == set.name {
            guard let dependent = schema.entitySet(relation.dependent) else { continue }
            let keys = try Int64.fetchAll(
                db,
                sql:
                    "SELECT \(quoted(dependent.key)) FROM \(quoted(dependent.name)) WHERE \(quoted(relation.foreignKey)) = ?",
                arguments: [key])
            for dependentKey in keys { try delete(dependent, key: dependentKey, db) }
        }
        try db.execute(sql: "DELETE FROM \(quoted(set.name)) WHERE \(quoted(set.key)) = ?", arguments: [key])
        // A tombstone, for delta reads (kept a day).
        try Self.createTombstoneTable(db)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try db.execute(
            sql: "INSERT INTO demo_tombstone (entitySet, key, deletedAt) VALUES (?, ?, ?)",
            arguments: [set.name, key, now])
        try db.execute(sql: "DELETE FROM demo_tombstone WHERE deletedAt < ?", arguments: [now - 86_400_000])
    }

    static func createTombstoneTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS demo_tombstone (
                    entitySet TEXT NOT NULL, key INTEGER NOT NULL, deletedAt INTEGER NOT NULL)
                """)
    }

    /// The keys of `set`'s entities deleted at or after `since` (ms).
    static func deletedKeys(_ set: EntitySetSchema, since: Int64, _ db: Database) throws -> [Int64] {
        guard try db.tableExists("demo_tombstone") else { return [] }  // (nothing deleted yet; this is a read)
        return try Int64.fetchAll(
            db, sql: "SELECT DISTINCT key FROM demo_tombstone WHERE entitySet = ? AND deletedAt >= ? ORDER BY key",
            arguments: [set.name, since])
    }

    /// The stored values a body sets, checked against the schema: a `400` naming the property and the rule.
    static func values(
        of body: [UInt8], for set: EntitySetSchema, key: Int64, replace: Bool
    ) throws
        -> [String: DatabaseValue]
    {
        let object = try self.object(of: body)
        var values: [String: DatabaseValue] = [:]
        // `__metadata` (v2) and `@…` annotations (v4) are not properties.
        for member in object.members where member.key != "__metadata" && !member.key.hasPrefix("@") {
            let (name, value) = (member.key, member.value)
            guard let property = set.property(name) else {
                throw ServiceError.badRequest("\(set.name) has no property \(name).")
            }
            if name == set.concurrencyProperty { continue }
            let stored = try storedValue(value, for: property, in: set)
            if name == set.key {
                guard stored == key.databaseValue else {
                    throw ServiceError.badRequest("\(name) is the key of \(set.name)(\(key)); it cannot change.")
                }
                continue
            }
            values[name] = stored
        }
        if replace {
            for property in set.properties where property.name != set.key && property.name != set.concurrencyProperty {
                if values[property.name] == nil { values[property.name] = .null }
            }
        }
        return values
    }

    /// The body's JSON object (inside `"d"` when a client wraps it so).
    static func object(of body: [UInt8]) throws -> JSONObject {
        guard body.count <= maximumBodyBytes else {
            throw ServiceError(status: 413, code: "PayloadTooLarge", message: "The body is larger than 1 MiB.")
        }
        let parsed: JSONValue
        do {
            parsed = try JSONReader().read(body)
        } catch {
            throw ServiceError.badRequest("The body is not JSON: \(error.description)")
        }
        switch parsed {
        case .object(let outer):
            if case .object(let inner)? = outer["d"] { return inner }
            return outer
        default:
            throw ServiceError.badRequest("The body is a JSON object of properties, not \(parsed.kindName).")
        }
    }

    static func storedValue(
        _ value: JSONValue, for property: PropertySchema, in set: EntitySetSchema
    ) throws
        -> DatabaseValue
    {
        let name = property.name
        if case .null = value {
            guard name != set.key else { throw ServiceError.badRequest("\(name) cannot be null.") }
            return .null
        }
        switch (property.type, value) {
        case (.int32, .number(let text)):
            guard let number = Int64(text), (Int64(Int32.min)...Int64(Int32.max)).contains(number) else {
                throw ServiceError.badRequest("\(name) is an Edm.Int32: a whole number from -2147483648 to 2147483647.")
            }
            return number.databaseValue
        case (.string, .string(let text)):
            // SQLite's text stops at a NUL: refused in words rather than cut without a word.
            guard !text.unicodeScalars.contains("\u{0}") else {
                throw ServiceError.badRequest("\(name) contains a NUL character, which this service cannot store.")
            }
            if let maxLength = property.maxLength, text.count > maxLength {
                throw ServiceError.badRequest("\(name) takes at most \(maxLength) characters (this has \(text.count)).")
            }
            return text.databaseValue
        case (.dateTime, .string(let text)):
            guard let instant = ODataInstant(wireDate: text) ?? ODataInstant(iso8601: text) else {
                throw ServiceError.badRequest("\(name) is an Edm.DateTime such as \"/Date(1257008908440)/\".")
            }
            return instant.millisecondsSince1970.databaseValue
        case (.decimalCents, .string(let text)), (.decimalCents, .number(let text)):
            guard let canonical = DecimalText.canonical(text), !canonical.contains("e") else {
                throw ServiceError.badRequest("\(name) is an Edm.Decimal such as \"12.50\".")
            }
            let parts = canonical.drop { $0 == "-" }.split(separator: ".")
            guard parts.count < 2 || parts[1].count <= 2, let number = Double(canonical), abs(number) < 1e13 else {
                throw ServiceError.badRequest("\(name) takes at most 2 digits after the point.")
            }
            return Int64((number * 100).rounded()).databaseValue
        default:
            throw ServiceError.badRequest("\(name) is an \(property.type.edm.rawValue), not \(value.kindName).")
        }
    }
}
