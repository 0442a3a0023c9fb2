import Foundation
import GRDB
import GRDBSQLite

/// The write path's hot statements, run with values bound straight through SQLite's C API.
///
/// Ingest executes a few statements per entity. GRDB's general path costs about as much as
/// SQLite's own work there: its statement cache hashes the SQL text on every lookup, and its
/// arguments go through `StatementArguments` → `DatabaseValue` → a copy SQLite makes of each
/// string. Here a transaction looks its statements up by name, and a run copies its strings and
/// blobs once into a reused buffer that SQLite reads in place (`SQLITE_STATIC`) until it steps.
///
/// Only for writes to the `WITHOUT ROWID` tables, whose changes the cache notifies to observers
/// itself at the end of every transaction (see ``CacheDatabase``): statements run this way bypass
/// GRDB's per-statement observation bookkeeping. A statement used here must not also be run
/// through GRDB with stored arguments (bindings are cleared after each run).
final class WriteStatements {
    /// The statements, by what they do.
    enum Name: Int, CaseIterable {
        case upsertEntity, upsertRelation, upsertListRow

        var sql: String {
            switch self {
            case .upsertEntity:
                """
                INSERT INTO entity (key, entitySet, type, properties, etag, fetchedAt, complete)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?8)
                ON CONFLICT (key) DO UPDATE SET entitySet = excluded.entitySet, type = coalesce(excluded.type, type),
                    properties = CASE WHEN pending = 0 AND (settledAt IS NULL OR settledAt <= ?7)
                        THEN excluded.properties ELSE properties END,
                    complete = CASE WHEN pending = 0 AND (settledAt IS NULL OR settledAt <= ?7)
                        THEN excluded.complete ELSE complete END,
                    etag = CASE WHEN pending = 0 AND (settledAt IS NULL OR settledAt <= ?7)
                        THEN excluded.etag ELSE etag END,
                    fetchedAt = excluded.fetchedAt
                """
            case .upsertRelation:
                """
                INSERT INTO relation (parentKey, navigation, childKeys, fetchedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (parentKey, navigation) DO UPDATE SET
                    childKeys = CASE WHEN instr(childKeys, '''~new-') = 0
                            AND (changedHereAt IS NULL OR changedHereAt <= ?5) THEN excluded.childKeys ELSE
                        (SELECT json_group_array(value) FROM (
                            SELECT value FROM json_each(relation.childKeys)
                                WHERE (instr(value, '''~new-') > 0
                                    OR (SELECT settledAt FROM entity WHERE key = value) > ?5)
                                AND value NOT IN (SELECT value FROM json_each(excluded.childKeys))
                            UNION ALL SELECT value FROM json_each(excluded.childKeys)))
                        END,
                    fetchedAt = CASE WHEN relation.fetchedAt = 0 AND relation.changedHereAt > ?5 THEN 0
                        ELSE excluded.fetchedAt END
                """
            case .upsertListRow:
                """
                INSERT INTO listRow (listId, position, entityKey, fetchedAt) VALUES (?, ?, ?, ?)
                ON CONFLICT (listId, position) DO UPDATE SET entityKey = excluded.entityKey, fetchedAt = excluded.fetchedAt
                """
            }
        }
    }

    private let db: Database
    private var statements: [FastStatement?] = Array(repeating: nil, count: Name.allCases.count)
    /// Shared by every run: values are copied here, then bound in place.
    private var binder = Binder()

    init(_ db: Database) {
        self.db = db
    }

    /// Binds with `bind`, steps to completion, and resets.
    func run(_ name: Name, _ bind: (inout Binder) -> Void) throws {
        let statement =
            try statements[name.rawValue]
            ?? {
                let made = try FastStatement(db.cachedStatement(sql: name.sql), connection: db.sqliteConnection)
                statements[name.rawValue] = made
                return made
            }()
        binder.clear()
        bind(&binder)
        try statement.run(binder)
    }
}

/// One prepared statement and its connection.
struct FastStatement {
    let statement: Statement
    let connection: OpaquePointer?

    init(_ statement: Statement, connection: OpaquePointer?) {
        self.statement = statement
        self.connection = connection
    }

    /// Binds `binder`'s values, steps to completion, and resets.
    func run(_ binder: Binder) throws {
        let raw = statement.sqliteStatement
        sqlite3_reset(raw)
        defer {
            sqlite3_reset(raw)
            sqlite3_clear_bindings(raw)
        }
        try binder.bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress.map { UnsafeRawPointer($0) }
            for value in binder.values {
                switch value.kind {
                case .null:
                    sqlite3_bind_null(raw, value.index)
                case .int:
                    sqlite3_bind_int64(raw, value.index, value.integer)
                case .double:
                    sqlite3_bind_double(raw, value.index, value.double)
                case .text, .blob:
                    // An empty value still needs a non-null pointer, or SQLite binds NULL.
                    let pointer = base.map { $0 + value.offset } ?? UnsafeRawPointer(Binder.empty)
                    if value.kind == .text {
                        sqlite3_bind_text(
                            raw, value.index, pointer.assumingMemoryBound(to: CChar.self), Int32(value.length), nil)
                    } else {
                        sqlite3_bind_blob(raw, value.index, pointer, Int32(value.length), nil)
                    }
                }
            }
            // `nil` destructor = SQLITE_STATIC: the buffer outlives the step below.
            while true {
                let code = sqlite3_step(raw)
                if code == SQLITE_DONE { return }
                if code == SQLITE_ROW { continue }
                let message = connection.map { String(cString: sqlite3_errmsg($0)) }
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
        }
    }
}

/// Values for one run, by 1-based parameter index; strings and blobs are copied into `bytes`.
struct Binder {
    enum Kind { case null, int, double, text, blob }

    struct Value {
        var index: Int32
        var kind: Kind
        var integer: Int64 = 0
        var double: Double = 0
        var offset = 0
        var length = 0
    }

    /// A byte for empty values to point at. `nonisolated(unsafe)`: a pointer is not `Sendable`, but this one's byte
    /// is never written, read or freed: only its address is handed to SQLite, with a length of 0.
    nonisolated(unsafe) static let empty = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)

    fileprivate(set) var bytes: [UInt8] = []
    fileprivate(set) var values: [Value] = []

    mutating func clear() {
        bytes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    mutating func text(_ index: Int32, _ value: String) {
        var value = value
        let offset = bytes.count
        value.withUTF8 { bytes.append(contentsOf: $0) }
        values.append(Value(index: index, kind: .text, offset: offset, length: bytes.count - offset))
    }

    mutating func text(_ index: Int32, _ value: String?) {
        if let value { text(index, value) } else { values.append(Value(index: index, kind: .null)) }
    }

    /// Text given as UTF-8 bytes (SQLite's JSON functions read text, not blobs).
    mutating func text(_ index: Int32, utf8: [UInt8]) {
        values.append(Value(index: index, kind: .text, offset: bytes.count, length: utf8.count))
        bytes.append(contentsOf: utf8)
    }

    mutating func blob(_ index: Int32, _ value: [UInt8]) {
        values.append(Value(index: index, kind: .blob, offset: bytes.count, length: value.count))
        bytes.append(contentsOf: value)
    }

    /// A blob written in place by `write`.
    mutating func blob(_ index: Int32, writing write: (inout [UInt8]) -> Void) {
        let offset = bytes.count
        write(&bytes)
        values.append(Value(index: index, kind: .blob, offset: offset, length: bytes.count - offset))
    }

    mutating func int(_ index: Int32, _ value: Int) { int64(index, Int64(value)) }

    mutating func int64(_ index: Int32, _ value: Int64) {
        values.append(Value(index: index, kind: .int, integer: value))
    }

    mutating func double(_ index: Int32, _ value: Double) {
        values.append(Value(index: index, kind: .double, double: value))
    }
}
