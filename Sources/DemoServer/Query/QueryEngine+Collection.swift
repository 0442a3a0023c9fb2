import GRDB
import ODataCore

extension QueryEngine {
    /// One order key: a column and its direction.
    struct OrderKey {
        var property: PropertySchema
        var descending: Bool
    }

    /// A page of a collection: `$filter`, `$orderby`, `$skip`/`$skiptoken`, `$top` and the page size.
    ///
    /// The key is always the last order key (in the direction of the one before it), so that order is
    /// total and a skip token (the last row's order values) resumes exactly after it, without OFFSET.
    func collection(
        _ set: EntitySetSchema, scope: SQLFragment?, _ options: QueryRequest, _ db: Database
    ) throws -> QueryResult {
        let (expandTree, _) = try validateShape(options, set)
        let order = try orderKeys(options, set)
        var conditions = try baseConditions(set, scope: scope, options)
        if let token = options.skipToken { conditions.append(try keysetCondition(token, order, set)) }
        let pageLimit = min(options.top ?? Int.max, pageSize)
        let fetchLimit = options.top.map { $0 <= pageSize } == true ? pageLimit : pageLimit + 1
        var sql = "SELECT \(selectList(set)) FROM \(quoted(set.name))"
        let condition = SQLFragment.join(conditions, separator: " AND ")
        if !conditions.isEmpty { sql += " WHERE " + condition.sql }
        sql +=
            " ORDER BY "
            + order.map { quoted($0.property.name) + ($0.descending ? " DESC" : "") }
            .joined(separator: ", ")
        sql += " LIMIT \(fetchLimit) OFFSET \(options.skip ?? 0)"
        var nodes = try Row.fetchAll(db, sql: sql, arguments: condition.statementArguments)
            .map { EntityNode(set: set.name, values: Array($0.databaseValues)) }
        var next: NextPage?
        if nodes.count > pageLimit {
            nodes.removeLast(nodes.count - pageLimit)
            next = NextPage(
                skipToken: skipToken(for: nodes[nodes.count - 1], order, set),
                remainingTop: options.top.map { $0 - pageLimit }
            )
        }
        let total = options.inlineCount ? try countRows(set, scope: scope, options, db) : nil
        return .collection(try expand(nodes, set, expandTree, db), count: total, next: next)
    }

    /// The `$count` of a collection, after `$filter`, `$skip` and `$top`.
    func count(_ set: EntitySetSchema, scope: SQLFragment?, _ options: QueryRequest, _ db: Database) throws -> Int {
        var total = try countRows(set, scope: scope, options, db)
        total = max(0, total - (options.skip ?? 0))
        return min(total, options.top ?? total)
    }

    private func countRows(
        _ set: EntitySetSchema, scope: SQLFragment?, _ options: QueryRequest, _ db: Database
    ) throws -> Int {
        let conditions = try baseConditions(set, scope: scope, options)
        let condition = SQLFragment.join(conditions, separator: " AND ")
        let sql = "SELECT COUNT(*) FROM \(quoted(set.name))" + (conditions.isEmpty ? "" : " WHERE " + condition.sql)
        return try Int.fetchOne(db, sql: sql, arguments: condition.statementArguments) ?? 0
    }

    /// The navigation scope and the `$filter` condition.
    private func baseConditions(
        _ set: EntitySetSchema, scope: SQLFragment?, _ options: QueryRequest
    ) throws -> [SQLFragment] {
        var conditions: [SQLFragment] = []
        if let scope { conditions.append(scope) }
        if let filter = options.filter { conditions.append(try FilterTranslator(set: set).condition(filter)) }
        if let search = options.searchText {
            guard !set.searchable.isEmpty else {
                throw ServiceError.notImplemented("\(set.name) is not searchable: narrow the read with $filter.")
            }
            // (v4's `$search` is an expression; SAP's v2 `search` is the text typed, looked for as it is)
            let condition =
                options.dialect == .v4
                ? try SearchParser.condition(search, columns: set.searchable)
                : try SearchParser.phrase(search, columns: set.searchable)
            conditions.append(try FilterTranslator(set: set).condition(condition))
        }
        if let since = options.deltaToken {
            // Every write moves the concurrency stamp on (ms): what changed since the token, made ones included.
            conditions.append(SQLFragment("\(quoted(set.concurrencyProperty)) >= ?", [since.databaseValue]))
        }
        return conditions
    }

    private func orderKeys(_ options: QueryRequest, _ set: EntitySetSchema) throws -> [OrderKey] {
        var keys: [OrderKey] = []
        for item in options.orderBy {
            guard let property = set.property(item.property) else {
                if item.property.contains("/") {
                    throw ServiceError.notImplemented("$orderby on navigation paths is not supported.")
                }
                throw ServiceError.badRequest("$orderby: \(set.name) has no property '\(item.property)'.")
            }
            if property.name == set.key {
                keys.append(OrderKey(property: property, descending: item.descending))
                return keys
            }
            if !keys.contains(where: { $0.property.name == property.name }) {
                keys.append(OrderKey(property: property, descending: item.descending))
            }
        }
        keys.append(OrderKey(property: set.property(set.key)!, descending: keys.last?.descending ?? false))
        return keys
    }

    /// `name=literal,…` of the last row's order values.
    private func skipToken(for node: EntityNode, _ order: [OrderKey], _ set: EntitySetSchema) -> String {
        order.map { key in
            let value = key.property.type.odataValue(node.values[set.columnIndex(key.property.name)!])
            return key.property.name + "=" + (ODataLiteral.format(value, as: key.property.type.edm) ?? "null")
        }.joined(separator: ",")
    }

    /// Rows strictly after the skip token in the order: a row-value comparison when all keys go the same
    /// way (it walks the index), else the expanded `a > ? OR (a = ? AND b < ?) …` form.
    private func keysetCondition(
        _ token: [EntityKey.KeyValue], _ order: [OrderKey], _ set: EntitySetSchema
    ) throws -> SQLFragment {
        let invalid = ServiceError.badRequest("$skiptoken does not match this request's $orderby.")
        guard token.count == order.count else { throw invalid }
        var values: [DatabaseValue] = []
        for (item, key) in zip(token, order) {
            guard item.name == key.property.name, let stored = key.property.type.storedValue(item.value) else {
                throw invalid
            }
            values.append(stored)
        }
        let columns = order.map { quoted($0.property.name) }
        if Set(order.map(\.descending)).count == 1 {
            let op = order[0].descending ? "<" : ">"
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return SQLFragment("((\(columns.joined(separator: ", "))) \(op) (\(placeholders)))", values)
        }
        var alternatives: [SQLFragment] = []
        for index in order.indices {
            var parts = (0..<index).map { SQLFragment("\(columns[$0]) = ?", [values[$0]]) }
            parts.append(SQLFragment("\(columns[index]) \(order[index].descending ? "<" : ">") ?", [values[index]]))
            alternatives.append(SQLFragment.join(parts, separator: " AND "))
        }
        let joined = SQLFragment.join(alternatives.map { SQLFragment("(\($0.sql))", $0.arguments) }, separator: " OR ")
        return SQLFragment("(\(joined.sql))", joined.arguments)
    }
}
