import Foundation
import GRDB
import ODataCore

/// The demo's draft-enabled set (issue 36), at the v4 root only: the work orders of the workshop, edited as an SAP
/// CAP service edits a set it keeps in drafts.
///
/// * Each work order is there once active (`IsActiveEntity` true) and, while someone edits it, once more as that
///   person's draft (`IsActiveEntity` false). The key holds both: `WorkOrder(ID=1,IsActiveEntity=true)`.
/// * `Common.DraftRoot` on the set names the actions. `draftEdit` on the active one makes the draft (`If-Match`: the
///   active one's version); `PATCH` changes the draft; `draftPrepare` checks it; `draftActivate` makes its values the
///   active one's and drops the draft; `DELETE` of the draft discards it. A `POST` to the set makes a new draft with
///   the next number, activated the same way. A change of the active one itself is refused: it goes through a draft.
/// * Only the one editing a draft may touch it. Every request here is the demo's user (``user``); work order 3's
///   draft is held by ALICE, and a change of it is `423 Locked`, naming her and since when.
/// * Activation checks what a work order needs: a title and a car that exists. A refusal is a `400` with the
///   sentence, the draft kept.
/// * `Repeatability-Request-ID` is honoured: a request id seen before gets the first answer again, and changes
///   nothing.
///
/// The work orders live in the demo's SQLite file (``table``, made once with four of them), so they persist as the
/// other sets' changes do. Its reads filter and sort in memory (``RowFilter``): a workshop holds tens of orders.
struct WorkOrderSet: Sendable {
    /// The set (and its type's) name.
    static let name = "WorkOrder"
    /// The table the work orders are kept in (not a set's own name: the generic sets never see it).
    static let table = "demo_work_order"
    /// Request ids seen, with the requests they named and the answers they got.
    static let repeatabilityTable = "demo_work_order_answers"
    /// The next work order number (one row): a number is never given twice, even after its order was deleted.
    static let counterTable = "demo_work_order_next"
    /// The most work orders (active and drafts) the demo keeps.
    static let mostOrders = 10_000
    /// Who every request here is: the demo has no users of its own.
    static let user = "you"
    /// The other user, who holds work order 3's draft.
    static let otherUser = "ALICE"
    static let longestTitle = 100

    let namespace: String

    /// One work order as stored: the active one, or a draft of it.
    struct Order: Sendable, Equatable {
        var id: Int64
        var isActive: Bool
        var hasActive: Bool
        var hasDraft: Bool
        var title: String?
        var carID: Int64?
        /// Milliseconds since 1970 of its last change: its version (`W/"…"`).
        var modifiedAt: Int64
        /// A draft's: who edits it, and since when (ms since 1970).
        var heldBy: String?
        var draftSince: Int64?

        var etag: String { "W/\"\(modifiedAt)\"" }

        /// A draft's `DraftUUID`: one per draft made (its number and the moment it was made).
        var draftUUID: String? {
            guard !isActive, let since = draftSince else { return nil }
            func padded(_ number: UInt64, _ width: Int) -> String {
                let hex = String(String(number, radix: 16).suffix(width))
                return String(repeating: "0", count: width - hex.count) + hex
            }
            let number = padded(UInt64(bitPattern: id) & 0xFFFF_FFFF, 8)
            return number + "-0000-4000-8000-" + padded(UInt64(bitPattern: since), 12)
        }
        /// Its key predicate, as its URL writes it.
        var predicate: String { "\(WorkOrderSet.name)(ID=\(id),IsActiveEntity=\(isActive))" }

        /// Its properties as a filter and an order see them.
        func value(of property: String) -> ODataValue? {
            switch property {
            case "ID": .int(id)
            case "IsActiveEntity": .bool(isActive)
            case "HasActiveEntity": .bool(hasActive)
            case "HasDraftEntity": .bool(hasDraft)
            case "title": title.map(ODataValue.string) ?? .null
            case "carID": carID.map(ODataValue.int) ?? .null
            case "modifiedAt": .dateTimeOffset(ODataInstant(millisecondsSince1970: modifiedAt, offsetMinutes: 0))
            default: nil
            }
        }

        init(row: Row) {
            id = row["ID"]
            isActive = row["IsActiveEntity"]
            hasActive = row["HasActiveEntity"]
            hasDraft = row["HasDraftEntity"]
            title = row["title"]
            carID = row["carID"]
            modifiedAt = row["modifiedAt"]
            heldBy = row["inProcessByUser"]
            draftSince = row["draftCreatedAt"]
        }

        init(id: Int64, isActive: Bool, title: String?, carID: Int64?, modifiedAt: Int64) {
            self.id = id
            self.isActive = isActive
            self.hasActive = false
            self.hasDraft = false
            self.title = title
            self.carID = carID
            self.modifiedAt = modifiedAt
        }
    }

    /// The properties, in the order `$metadata` declares them and an entity is written.
    static let properties = [
        "ID", "IsActiveEntity", "HasActiveEntity", "HasDraftEntity", "title", "carID", "modifiedAt",
    ]

    // MARK: Storage

    /// Makes the table, with its first four work orders, unless the file has it. Run where the demo file is opened.
    static func prepare(_ db: Database) throws {
        if try !db.tableExists(repeatabilityTable) {
            try db.execute(
                sql: """
                    CREATE TABLE \(repeatabilityTable) (requestID TEXT PRIMARY KEY, request TEXT NOT NULL,
                        status INTEGER NOT NULL, etag TEXT, location TEXT, created TEXT, contentType TEXT,
                        body BLOB NOT NULL)
                    """)
        }
        try seed(db)
        if try !db.tableExists(counterTable) {
            try db.execute(sql: "CREATE TABLE \(counterTable) (next INTEGER NOT NULL)")
            try db.execute(
                sql: "INSERT INTO \(counterTable) (next) SELECT coalesce(max(ID), 0) + 1 FROM \(table)")
        }
    }

    /// Makes the table with its first four work orders, unless the file has it.
    private static func seed(_ db: Database) throws {
        guard try !db.tableExists(table) else { return }
        try db.execute(
            sql: """
                CREATE TABLE \(table) (
                    ID INTEGER NOT NULL, IsActiveEntity INTEGER NOT NULL, HasActiveEntity INTEGER NOT NULL,
                    HasDraftEntity INTEGER NOT NULL, title TEXT, carID INTEGER, modifiedAt INTEGER NOT NULL,
                    inProcessByUser TEXT, draftCreatedAt INTEGER, PRIMARY KEY (ID, IsActiveEntity))
                """)
        // A fixed moment, so that a fresh file is the same file every time.
        let seeded: Int64 = 1_764_000_000_000
        for (id, title, car) in [
            (1, "Replace the brake pads", 1), (2, "Rotate the tyres", 2), (3, "Check the lights", 3),
            (4, "Change the oil", 4),
        ] {
            try insert(Order(id: Int64(id), isActive: true, title: title, carID: Int64(car), modifiedAt: seeded), db)
        }
        // ALICE is editing work order 3.
        var draft = Order(
            id: 3, isActive: false, title: "Check the lights and the horn", carID: 3, modifiedAt: seeded + 60_000)
        draft.hasActive = true
        draft.heldBy = otherUser
        draft.draftSince = seeded + 60_000
        try insert(draft, db)
        try db.execute(sql: "UPDATE \(table) SET HasDraftEntity = 1 WHERE ID = 3 AND IsActiveEntity = 1")
    }

    static func insert(_ order: Order, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO \(table) (ID, IsActiveEntity, HasActiveEntity, HasDraftEntity, title, carID, modifiedAt,
                    inProcessByUser, draftCreatedAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                order.id, order.isActive, order.hasActive, order.hasDraft, order.title, order.carID, order.modifiedAt,
                order.heldBy, order.draftSince,
            ])
    }

    static func update(_ order: Order, _ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE \(table) SET HasActiveEntity = ?, HasDraftEntity = ?, title = ?, carID = ?, modifiedAt = ?,
                    inProcessByUser = ?, draftCreatedAt = ? WHERE ID = ? AND IsActiveEntity = ?
                """,
            arguments: [
                order.hasActive, order.hasDraft, order.title, order.carID, order.modifiedAt, order.heldBy,
                order.draftSince, order.id, order.isActive,
            ])
    }

    static func delete(id: Int64, isActive: Bool, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table) WHERE ID = ? AND IsActiveEntity = ?", arguments: [id, isActive])
    }

    static func order(id: Int64, isActive: Bool, _ db: Database) throws -> Order? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM \(table) WHERE ID = ? AND IsActiveEntity = ?", arguments: [id, isActive]
        ).map(Order.init(row:))
    }

    static func all(_ db: Database) throws -> [Order] {
        try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY ID, IsActiveEntity DESC").map(Order.init(row:))
    }

    // MARK: Addresses

    /// What a request path below the root (`%28`, `%29`, `%24` undone) names here.
    enum Target: Equatable {
        case collection
        case count
        case entity(id: Int64, isActive: Bool)
        /// A bound action: its name without the namespace.
        case action(id: Int64, isActive: Bool, name: String)
        /// Who edits its draft, and since when: `WorkOrder(…)/DraftAdministrativeData`.
        case administration(id: Int64, isActive: Bool)
        /// The drafts' administrative data, all or one (`DraftAdministrativeData(DraftUUID)`).
        case administrations
        case administrationOf(uuid: String)
    }

    /// The target of `relative`, nil when it is not under this set; a malformed one is a `400` or `404`.
    func target(_ relative: String) throws -> Target? {
        if relative.hasPrefix(Self.administration) {
            let rest = relative.dropFirst(Self.administration.count)
            if rest.isEmpty { return .administrations }
            guard rest.first == "(" || rest.first == "/" else { return nil }
            guard let path = ResourcePath.parse(relative: relative), path.segments.count == 1,
                let key = path.segments[0].key, key.count == 1, (key[0].name ?? "DraftUUID") == "DraftUUID",
                case .guid(let uuid) = key[0].value
            else {
                throw ServiceError.badRequest("A draft's administrative data is named by its DraftUUID, a GUID.")
            }
            return .administrationOf(uuid: uuid.lowercased())
        }
        guard relative.hasPrefix(Self.name) else { return nil }
        let rest = relative.dropFirst(Self.name.count)
        guard rest.isEmpty || rest.first == "(" || rest.first == "/" else { return nil }
        if rest.isEmpty { return .collection }
        if rest == "/$count" { return .count }
        guard let path = ResourcePath.parse(relative: relative), let key = path.segments[0].key, key.count == 2,
            case .int(let id)? = key.first(where: { $0.name == "ID" })?.value,
            case .bool(let isActive)? = key.first(where: { $0.name == DraftActions.activeKey })?.value
        else {
            throw ServiceError.badRequest(
                "A work order is named by its number and which copy it is: WorkOrder(ID=1,IsActiveEntity=true).")
        }
        switch path.segments.count {
        case 1: return .entity(id: id, isActive: isActive)
        case 2 where path.segments[1].name == Self.administration && path.segments[1].key == nil:
            return .administration(id: id, isActive: isActive)
        case 2:
            let segment = path.segments[1].name
            let prefix = namespace + "."
            guard segment.hasPrefix(prefix), Self.actions.contains(String(segment.dropFirst(prefix.count))) else {
                throw ServiceError.notFound("A work order has no '\(segment)': its actions are \(Self.actionList).")
            }
            return .action(id: id, isActive: isActive, name: String(segment.dropFirst(prefix.count)))
        default:
            throw ServiceError.notFound("Nothing is served below a work order's action.")
        }
    }

    static let actions = ["draftEdit", "draftPrepare", "draftActivate"]
    /// The navigation to a draft's administrative data, its type and its set (one name, as CAP gives them).
    static let administration = "DraftAdministrativeData"
    static var actionList: String { actions.joined(separator: ", ") }
}
