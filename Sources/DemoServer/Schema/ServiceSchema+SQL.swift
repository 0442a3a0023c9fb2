extension ServiceSchema {
    /// `CREATE TABLE` statements, one per entity set (no indexes: see ``indexStatements``).
    public var createStatements: [String] {
        entitySets.map { set in
            var columns = set.properties.map { property in
                property.name == set.key
                    ? "\(quoted(property.name)) INTEGER PRIMARY KEY"
                    : "\(quoted(property.name)) \(property.type.sqlType) NOT NULL"
            }
            for relation in relations where relation.dependent == set.name {
                let principalKey = entitySet(relation.principal)?.key ?? relation.foreignKey
                columns.append(
                    "\(quoted(relation.foreignKey)) INTEGER NOT NULL REFERENCES \(quoted(relation.principal))"
                        + "(\(quoted(principalKey)))"
                )
            }
            return "CREATE TABLE \(quoted(set.name)) (" + columns.joined(separator: ", ") + ")"
        }
    }

    /// Indexes for foreign keys and sortable columns, created after a bulk load.
    ///
    /// A single-column index also orders by the rowid (the key), so `ORDER BY column, key` with
    /// `WHERE (column, key) > (?, ?)` walks the index: keyset paging stays fast on a million rows.
    public var indexStatements: [String] {
        var statements: [String] = []
        for set in entitySets {
            for spec in foreignKeys(of: set.name) + set.indexed {
                // `a,b` is one index on both (an order by a, b, key walks it without sorting ties of a).
                let columns = spec.split(separator: ",").map(String.init)
                statements.append(
                    "CREATE INDEX IF NOT EXISTS \(quoted("ix_\(set.name)_\(columns.joined(separator: "_"))")) ON "
                        + "\(quoted(set.name))(\(columns.map(quoted).joined(separator: ", ")))"
                )
            }
        }
        return statements
    }
}

/// An SQL identifier in double quotes. Only names from the schema reach SQL this way, never request text.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
