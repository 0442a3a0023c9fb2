import GRDB
import ODataCore

/// Answers OData requests from the SQLite database: resolves the resource path, applies the query
/// options, and reads the rows (with their expansions) in one read transaction.
struct QueryEngine: Sendable {
    let schema: ServiceSchema
    let reader: DatabasePool
    /// Server-driven page size: no collection response holds more entities.
    let pageSize: Int

    /// The most levels `$expand` may go down.
    static let maximumExpandDepth = 4

    /// What a resource path points at, while it is being resolved.
    private enum Target {
        case collection(EntitySetSchema, scope: SQLFragment?)
        case entity(EntitySetSchema, EntityNode)
    }

    /// Resolves `path` and runs the query the options describe.
    func execute(_ path: ResourcePath, _ options: QueryRequest) async throws -> QueryResult {
        try await reader.read { db in try self.execute(path, options, db) }
    }

    func execute(_ path: ResourcePath, _ options: QueryRequest, _ db: Database) throws -> QueryResult {
        let segments = path.segments
        guard let first = segments.first, let set = schema.entitySet(first.name) else {
            throw ServiceError.notFound("There is no entity set '\(segments.first?.name ?? "")'.")
        }
        var target: Target
        if let key = first.key {
            target = .entity(set, try fetchEntity(set, key: try keyValue(key, set), scope: nil, db))
        } else {
            target = .collection(set, scope: nil)
        }
        var index = 1
        while index < segments.count {
            let segment = segments[index]
            let isLast = index == segments.count - 1
            switch (segment.name, target) {
            case ("$count", .collection(let set, let scope)):
                guard isLast else { throw ServiceError.badRequest("$count must be the last path segment.") }
                try rejectShapeOptions(options, for: "$count")
                return .count(try count(set, scope: scope, options, db))
            case ("$count", .entity):
                throw ServiceError.badRequest("$count applies to collections, not to a single entity.")
            case (_, .collection(let set, _)):
                throw ServiceError.badRequest("'\(segment.name)' follows the collection \(set.name); add a key first.")
            case (let name, .entity(let set, let node)):
                if let property = set.property(name) {
                    let raw = index + 1 < segments.count && segments[index + 1].name == "$value"
                    guard index + (raw ? 2 : 1) == segments.count, segment.key == nil else {
                        throw ServiceError.badRequest("Nothing can follow the property '\(name)' except $value.")
                    }
                    try rejectShapeOptions(options, for: "a property")
                    try rejectCollectionOptions(options, for: "a property")
                    let value = node.values[set.columnIndex(name)!]
                    return .property(name: name, type: property.type, value: value, raw: raw)
                }
                target = try navigate(from: set, node, segment, db)
            }
            index += 1
        }
        switch target {
        case .entity(let set, let node):
            try rejectCollectionOptions(options, for: "a single entity")
            let (expandTree, _) = try validateShape(options, set)
            return .entity(try expand([node], set, expandTree, db)[0])
        case .collection(let set, let scope):
            return try collection(set, scope: scope, options, db)
        }
    }

    /// Follows navigation `segment` from one entity.
    private func navigate(
        from set: EntitySetSchema, _ node: EntityNode, _ segment: ResourcePath.Segment, _ db: Database
    ) throws -> Target {
        guard let navigation = schema.navigation(segment.name, from: set.name),
            let targetSet = schema.entitySet(navigation.target)
        else {
            throw ServiceError.notFound("\(set.name) has no property or navigation '\(segment.name)'.")
        }
        if navigation.isCollection {
            let scope = SQLFragment("\(quoted(navigation.foreignKey)) = ?", [node.key.databaseValue])
            guard let key = segment.key else { return .collection(targetSet, scope: scope) }
            return .entity(targetSet, try fetchEntity(targetSet, key: try keyValue(key, targetSet), scope: scope, db))
        }
        guard segment.key == nil else {
            throw ServiceError.badRequest("'\(segment.name)' leads to a single entity and takes no key.")
        }
        let fkIndex = set.properties.count + schema.foreignKeys(of: set.name).firstIndex(of: navigation.foreignKey)!
        guard let foreignKey = Int64.fromDatabaseValue(node.values[fkIndex]) else {
            throw ServiceError.notFound("\(set.name)(\(node.key))/\(segment.name) has no entity.")
        }
        return .entity(targetSet, try fetchEntity(targetSet, key: foreignKey, scope: nil, db))
    }

    /// The integer key of a key predicate: `(1)`, `(1L)` or `(personID=1)`.
    func keyValue(_ key: [EntityKey.KeyValue], _ set: EntitySetSchema) throws -> Int64 {
        guard key.count == 1, key[0].name == nil || key[0].name == set.key, case .int(let value) = key[0].value else {
            throw ServiceError.badRequest("The key of \(set.name) is the integer \(set.key), e.g. \(set.name)(1).")
        }
        return value
    }

    /// One entity by key (and within `scope`); 404 when there is none.
    func fetchEntity(_ set: EntitySetSchema, key: Int64, scope: SQLFragment?, _ db: Database) throws -> EntityNode {
        var condition = SQLFragment("\(quoted(set.key)) = ?", [key.databaseValue])
        if let scope { condition = .build("$0 AND $1", condition, scope) }
        let sql = "SELECT \(selectList(set)) FROM \(quoted(set.name)) WHERE \(condition.sql)"
        guard let row = try Row.fetchOne(db, sql: sql, arguments: condition.statementArguments) else {
            throw ServiceError.notFound("\(set.name)(\(key)) does not exist.")
        }
        return EntityNode(set: set.name, values: Array(row.databaseValues))
    }

    /// The quoted column list of a set, in ``ServiceSchema/columns(of:)`` order.
    func selectList(_ set: EntitySetSchema) -> String {
        schema.columns(of: set).map(quoted).joined(separator: ", ")
    }

    private func rejectCollectionOptions(_ options: QueryRequest, for what: String) throws {
        if options.filter != nil || options.searchText != nil || !options.orderBy.isEmpty || options.top != nil
            || options.skip != nil
            || options.skipToken != nil || options.inlineCount
        {
            throw ServiceError.badRequest(
                "$filter, $search, $orderby, $top, $skip, $skiptoken and $inlinecount cannot be applied to \(what)."
            )
        }
    }

    private func rejectShapeOptions(_ options: QueryRequest, for what: String) throws {
        if !options.expand.isEmpty || !options.select.isEmpty {
            throw ServiceError.badRequest("$expand and $select cannot be applied to \(what).")
        }
    }
}
