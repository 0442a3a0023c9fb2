import Foundation
import GRDB
import GRDBSQLite

/// Runs one of GRDB's cached statements with values bound straight through SQLite's C API.
///
/// Ingest executes a handful of statements per entity; GRDB's general argument path
/// (`StatementArguments` → `DatabaseValue` → nested temporary bindings) costs about as much
/// as SQLite's own work there. Binding directly halves the write path's cost.
///
/// Only for writes to the `WITHOUT ROWID` tables, whose changes the cache notifies to
/// observers itself at the end of every transaction (see ``CacheDatabase``): statements run
/// this way bypass GRDB's per-statement observation bookkeeping. A statement used here must
/// not also be run through GRDB with stored arguments (bindings are cleared after each run).
struct FastStatement {
    let statement: Statement
    let connection: OpaquePointer?

    init(_ db: Database, _ sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        connection = db.sqliteConnection
    }

    /// Binds with `bind`, steps to completion, and resets. Returns the first column of the
    /// first row as an integer when the statement yields rows (for `SELECT count …`).
    @discardableResult
    func run(_ bind: (Binder) -> Void) throws -> Int64? {
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        bind(Binder(raw: raw))
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }
        var first: Int64?
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { return first }
            if code == SQLITE_ROW {
                if first == nil, sqlite3_column_type(raw, 0) != SQLITE_NULL { first = sqlite3_column_int64(raw, 0) }
                continue
            }
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
    }

    /// Binds values by 1-based position; strings and blobs are copied by SQLite.
    struct Binder {
        let raw: OpaquePointer

        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

        func text(_ index: Int32, _ value: String) {
            var value = value
            value.withUTF8 { bytes in
                guard let base = bytes.baseAddress, !bytes.isEmpty else {
                    _ = sqlite3_bind_text(raw, index, "", 0, nil) // empty text, not NULL
                    return
                }
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                    _ = sqlite3_bind_text(raw, index, chars, Int32(bytes.count), Self.transient)
                }
            }
        }

        func text(_ index: Int32, _ value: String?) {
            if let value { text(index, value) } else { sqlite3_bind_null(raw, index) }
        }

        func int(_ index: Int32, _ value: Int) { sqlite3_bind_int64(raw, index, Int64(value)) }

        func double(_ index: Int32, _ value: Double) { sqlite3_bind_double(raw, index, value) }

        func blob(_ index: Int32, _ bytes: [UInt8]) {
            bytes.withUnsafeBytes { buffer in
                _ = sqlite3_bind_blob(raw, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), Self.transient)
            }
        }
    }
}
