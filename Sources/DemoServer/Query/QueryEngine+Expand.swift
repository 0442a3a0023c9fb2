import GRDB

extension QueryEngine {
    /// Checks `$expand` and `$select` against the schema; returns their trees.
    ///
    /// Every expanded name must be a navigation (at most ``maximumExpandDepth`` levels); every selected
    /// name a property or navigation; and a path selected *into* a navigation needs that navigation expanded.
    func validateShape(_ options: QueryRequest, _ set: EntitySetSchema) throws -> (expand: PathTree, select: PathTree) {
        let expand = PathTree(paths: options.expand)
        guard expand.depth <= Self.maximumExpandDepth else {
            throw ServiceError.badRequest(
                "$expand goes \(expand.depth) levels deep; at most \(Self.maximumExpandDepth) are allowed.")
        }
        try validateExpand(expand, set)
        let select = PathTree(paths: options.select)
        try validateSelect(select, expand, set)
        return (expand, select)
    }

    private func validateExpand(_ tree: PathTree, _ set: EntitySetSchema) throws {
        for name in tree.names {
            guard let navigation = schema.navigation(name, from: set.name),
                let target = schema.entitySet(navigation.target)
            else { throw ServiceError.badRequest("$expand: \(set.name) has no navigation '\(name)'.") }
            if let child = tree.children[name] { try validateExpand(child, target) }
        }
        if tree.all { throw ServiceError.badRequest("$expand does not accept '*'.") }
    }

    private func validateSelect(_ tree: PathTree, _ expand: PathTree, _ set: EntitySetSchema) throws {
        for name in tree.names {
            if set.property(name) != nil {
                if tree.children[name] != nil {
                    throw ServiceError.badRequest("$select: '\(name)' is not a navigation.")
                }
                continue
            }
            guard let navigation = schema.navigation(name, from: set.name),
                let target = schema.entitySet(navigation.target)
            else { throw ServiceError.badRequest("$select: \(set.name) has no property or navigation '\(name)'.") }
            if let child = tree.children[name] {
                guard let expanded = expand.children[name] ?? (expand.names.contains(name) ? PathTree() : nil) else {
                    throw ServiceError.badRequest("$select: '\(name)/…' needs $expand=\(name).")
                }
                try validateSelect(child, expanded, target)
            }
        }
    }

    /// Reads the expanded navigations of `nodes` level by level: one query per navigation per level,
    /// whatever the number of parents (`WHERE fk IN (…)`, in chunks).
    func expand(_ nodes: [EntityNode], _ set: EntitySetSchema, _ tree: PathTree, _ db: Database) throws -> [EntityNode]
    {
        guard !nodes.isEmpty, !tree.names.isEmpty else { return nodes }
        var result = nodes
        for name in tree.names {
            guard let navigation = schema.navigation(name, from: set.name),
                let target = schema.entitySet(navigation.target)
            else { continue }
            let subtree = tree.children[name] ?? PathTree()
            if navigation.isCollection {
                let parentKeys = Array(Set(nodes.map(\.key)))
                let children = try fetch(target, column: navigation.foreignKey, in: parentKeys, db)
                let expandedChildren = try expand(children, target, subtree, db)
                let fkIndex =
                    target.properties.count + schema.foreignKeys(of: target.name).firstIndex(of: navigation.foreignKey)!
                var byParent: [Int64: [EntityNode]] = [:]
                for child in expandedChildren {
                    byParent[Int64.fromDatabaseValue(child.values[fkIndex]) ?? 0, default: []].append(child)
                }
                for index in result.indices { result[index].expanded[name] = .many(byParent[result[index].key] ?? []) }
            } else {
                let fkIndex =
                    set.properties.count + schema.foreignKeys(of: set.name).firstIndex(of: navigation.foreignKey)!
                let foreignKeys = Array(Set(nodes.compactMap { Int64.fromDatabaseValue($0.values[fkIndex]) }))
                let targets = try expand(
                    try fetch(target, column: target.key, in: foreignKeys, db), target, subtree, db)
                let byKey = Dictionary(targets.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
                for index in result.indices {
                    let foreignKey = Int64.fromDatabaseValue(result[index].values[fkIndex])
                    result[index].expanded[name] = .one(foreignKey.flatMap { byKey[$0] })
                }
            }
        }
        return result
    }

    /// Rows of `set` whose `column` is one of `values`, ordered by that column then key.
    private func fetch(
        _ set: EntitySetSchema, column: String, in values: [Int64], _ db: Database
    ) throws -> [EntityNode] {
        var nodes: [EntityNode] = []
        let sorted = values.sorted()
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(start + 500, sorted.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let sql =
                "SELECT \(selectList(set)) FROM \(quoted(set.name)) WHERE \(quoted(column)) IN (\(placeholders))"
                + " ORDER BY \(quoted(column)), \(quoted(set.key))"
            let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(chunk.map(\.databaseValue)))
            nodes += rows.map { EntityNode(set: set.name, values: Array($0.databaseValues)) }
            start += 500
        }
        return nodes
    }
}
