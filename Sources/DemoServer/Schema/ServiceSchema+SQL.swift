extension ServiceSchema {
    /// `CREATE TABLE` statements, one per entity set (no indexes: see ``indexStatements``).
    public var createStatements: [String] {
        entitySets.map(createStatement(of:))
    }

    /// The `CREATE TABLE` of one set.
    func createStatement(of set: EntitySetSchema) -> String {
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

extension EntitySetSchema {
    /// The substring index of ``searchable``, filled from the table, and the triggers that keep it so: a contentless
    /// FTS5 table of trigrams (case-sensitive, over `odata_tolower` of each column, exactly what `tolower` in a
    /// `$filter` compares). Empty when nothing is searchable. Needs `odata_tolower` on the connection, as every
    /// later write to the table does (the triggers call it).
    var searchStatements: [String] {
        guard !searchable.isEmpty else { return [] }
        let table = quoted(searchTable)
        let columns = searchable.map(quoted).joined(separator: ", ")
        func lowered(_ row: String) -> String {
            searchable.map { "odata_tolower(\(row)\(quoted($0)))" }.joined(separator: ", ")
        }
        let key = quoted(self.key)
        let insert = "INSERT INTO \(table)(rowid, \(columns)) VALUES (new.\(key), \(lowered("new.")));"
        let delete =
            "INSERT INTO \(table)(\(table), rowid, \(columns)) VALUES ('delete', old.\(key), \(lowered("old.")));"
        return [
            "CREATE VIRTUAL TABLE \(table) USING fts5(\(columns), content='', tokenize='trigram case_sensitive 1')",
            "INSERT INTO \(table)(rowid, \(columns)) SELECT \(key), \(lowered("")) FROM \(quoted(name))",
            "CREATE TRIGGER \(quoted(searchTable + "_insert")) AFTER INSERT ON \(quoted(name)) BEGIN \(insert) END",
            "CREATE TRIGGER \(quoted(searchTable + "_delete")) AFTER DELETE ON \(quoted(name)) BEGIN \(delete) END",
            "CREATE TRIGGER \(quoted(searchTable + "_update")) AFTER UPDATE ON \(quoted(name)) BEGIN \(delete) \(insert) END",
        ]
    }
}

/// An SQL identifier in double quotes. Only names from the schema reach SQL this way, never request text.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
