import Foundation
import GRDB
import HTTPTypes
import ODataCore

extension WorkOrderSet {
    // MARK: Reads

    /// The answer to a `GET` of `target`: its body, and its version when it is one work order.
    func read(
        _ target: Target, query: String?, serviceRoot: String, _ db: Database
    ) throws -> (body: [UInt8], etag: String?, isText: Bool) {
        switch target {
        case .entity(let id, let isActive):
            let options = try QueryRequest(query: query, dialect: .v4)
            let expands = try Self.expandsAdministration(options)
            guard let order = try Self.order(id: id, isActive: isActive, db) else {
                throw ServiceError.notFound("There is no work order \(id)\(isActive ? "" : " in draft").")
            }
            let drafts = expands ? try Self.drafts(db) : [:]
            var json = JSONWriter(capacity: 512)
            Self.write(
                order, into: &json, context: serviceRoot + "$metadata#\(Self.name)/$entity", select: nil,
                administration: expands ? .some(drafts[order.id]) : nil)
            return (json.bytes, order.etag, false)
        case .action:
            throw ServiceError.methodNotAllowed("GET of an action (POST it)")
        case .administration(let id, let isActive):
            guard try Self.order(id: id, isActive: isActive, db) != nil else {
                throw ServiceError.notFound("There is no work order \(id)\(isActive ? "" : " in draft").")
            }
            // (an active one's is its draft's; without a draft there is none: an empty answer)
            guard let draft = try Self.order(id: id, isActive: false, db) else { return ([], nil, false) }
            var json = JSONWriter(capacity: 512)
            Self.writeAdministration(
                of: draft, into: &json, context: serviceRoot + "$metadata#\(Self.administration)/$entity")
            return (json.bytes, nil, false)
        case .administrations, .administrationOf:
            let drafts = try Self.drafts(db).values.sorted { $0.id < $1.id }
            var json = JSONWriter()
            if case .administrationOf(let uuid) = target {
                guard let draft = drafts.first(where: { $0.draftUUID == uuid }) else {
                    throw ServiceError.notFound("No draft has the DraftUUID \(uuid).")
                }
                Self.writeAdministration(
                    of: draft, into: &json, context: serviceRoot + "$metadata#\(Self.administration)/$entity")
                return (json.bytes, nil, false)
            }
            json.beginObject()
            json.key("@odata.context")
            json.string(serviceRoot + "$metadata#\(Self.administration)")
            json.key("value")
            json.beginArray()
            for draft in drafts { Self.writeAdministration(of: draft, into: &json, context: nil) }
            json.endArray()
            json.endObject()
            return (json.bytes, nil, false)
        case .collection, .count:
            let options = try QueryRequest(query: query, dialect: .v4)
            let expands = try Self.expandsAdministration(options)
            let drafts = expands ? try Self.drafts(db) : [:]
            let orders = try listed(try Self.all(db), options)
            if target == .count { return (Array(String(orders.count).utf8), nil, true) }
            var json = JSONWriter()
            json.beginObject()
            json.key("@odata.context")
            json.string(serviceRoot + "$metadata#\(Self.name)")
            if options.inlineCount {
                json.key("@odata.count")
                json.number(Int64(orders.count))
            }
            let skipped = orders.dropFirst(options.skip ?? 0).prefix(options.top ?? Int.max)
            let select = options.select.isEmpty || options.select.contains("*") ? nil : Set(options.select)
            json.key("value")
            json.beginArray()
            for order in skipped {
                Self.write(
                    order, into: &json, context: nil, select: select,
                    administration: expands ? .some(drafts[order.id]) : nil)
            }
            json.endArray()
            json.endObject()
            return (json.bytes, nil, false)
        }
    }

    /// The work orders `options` select, in its order (by number, the active one first, when it names none).
    /// Whether `options` expand the draft's administrative data (the one navigation a work order has).
    static func expandsAdministration(_ options: QueryRequest) throws -> Bool {
        for path in options.expand where path.prefix(while: { $0 != "(" }) != administration {
            throw ServiceError.badRequest("$expand: a work order has one navigation, \(administration), not \(path).")
        }
        return !options.expand.isEmpty
    }

    /// The drafts, by work order number.
    static func drafts(_ db: Database) throws -> [Int64: Order] {
        let drafts = try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE IsActiveEntity = 0").map(Order.init(row:))
        return Dictionary(drafts.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func listed(_ orders: [Order], _ options: QueryRequest) throws -> [Order] {
        if options.searchText != nil {
            throw ServiceError.notImplemented("Work orders are not searchable ($search): filter them instead.")
        }
        if options.deltaToken != nil || options.skipToken != nil {
            throw ServiceError.badRequest("Work orders are read whole: no delta or skip tokens are given for them.")
        }
        for name in options.select where name != "*" && !Self.properties.contains(name) {
            throw ServiceError.badRequest("$select: a work order has no property '\(name)'.")
        }
        var result = orders
        if let filter = options.filter {
            result = try result.filter { order in
                try RowFilter(setName: Self.name, value: order.value(of:)).passes(filter)
            }
        }
        for (property, _) in options.orderBy where !Self.properties.contains(property) {
            throw ServiceError.badRequest("$orderby: a work order has no property '\(property)'.")
        }
        if !options.orderBy.isEmpty {
            // Nulls first, as SQL sorts them; ties kept in number order.
            result = result.enumerated().sorted { left, right in
                for (property, descending) in options.orderBy {
                    let (a, b) = (left.element.value(of: property) ?? .null, right.element.value(of: property) ?? .null)
                    let order = a.isNull ? (b.isNull ? 0 : -1) : b.isNull ? 1 : RowFilter.compare(a, b) ?? 0
                    if order != 0 { return descending ? order > 0 : order < 0 }
                }
                return left.offset < right.offset
            }.map(\.element)
        }
        return result
    }

    // MARK: Writes

    /// A write to the set, checked, as a step to run in a transaction (alone or in a `$batch` changeset).
    func plan(_ write: WriteRequest, target: Target) throws -> @Sendable (Database) throws -> ServiceAnswer {
        let requestID = write.headers[.repeatabilityRequestID]
        if let requestID, requestID.isEmpty || requestID.utf8.count > 100 {
            throw ServiceError.badRequest("Repeatability-Request-ID is 1 to 100 characters.")
        }
        let ifMatch = write.headers[.ifMatch]
        let change: @Sendable (Database) throws -> ServiceAnswer
        switch (write.method, target) {
        case (_, .administration), (_, .administrations), (_, .administrationOf):
            throw ServiceError.methodNotAllowed(
                "\(write.method) of a draft's administrative data (the service keeps it)")
        case (.post, .collection):
            let fields = try Self.fields(of: write.body)
            change = { db in try self.create(fields, write, db) }
        case (.post, .action(let id, let isActive, let name)):
            let body = write.body.isEmpty ? JSONObject() : try EntityWriter.object(of: write.body)
            var preserve = false
            for member in body.members where !member.key.hasPrefix("@") {
                switch (name, member.key, member.value) {
                case ("draftEdit", "PreserveChanges", .bool(let flag)): preserve = flag
                case ("draftEdit", "PreserveChanges", .null): break
                case ("draftPrepare", "SideEffectsQualifier", .string), ("draftPrepare", "SideEffectsQualifier", .null):
                    break
                default:
                    throw ServiceError.badRequest("\(name) takes no parameter '\(member.key)' of that kind.")
                }
            }
            let preserves = preserve
            change = { db in
                try self.act(name, id: id, isActive: isActive, preserve: preserves, ifMatch: ifMatch, write, db)
            }
        case (.patch, .entity(let id, let isActive)), (.merge, .entity(let id, let isActive)):
            guard !isActive else {
                throw ServiceError(
                    status: 409, code: "DraftRequired",
                    message: "A work order is changed through its draft: \(namespace).draftEdit, then PATCH the "
                        + "draft, then \(namespace).draftActivate.")
            }
            let fields = try Self.fields(of: write.body)
            change = { db in try self.patch(id: id, fields, ifMatch: ifMatch, write, db) }
        case (.delete, .entity(let id, let isActive)):
            change = { db in try self.delete(id: id, isActive: isActive, ifMatch: ifMatch, write, db) }
        case (.put, .entity):
            throw ServiceError.notImplemented("PUT of a work order: PATCH its draft.")
        default:
            throw ServiceError.methodNotAllowed("\(write.method) of \(write.relative)")
        }
        // (what a request id names: the same id on another request is refused, not answered with this one's answer)
        let request = write.method.rawValue + " " + write.relative
        return { db in
            if let requestID,
                let stored = try Row.fetchOne(
                    db, sql: "SELECT * FROM \(Self.repeatabilityTable) WHERE requestID = ?", arguments: [requestID])
            {
                guard stored["request"] == request else {
                    throw ServiceError.badRequest("Repeatability-Request-ID \(requestID) was used by another request.")
                }
                // The first answer again, whole; nothing changes.
                var headers = ODataResponder.writeHeaders(write, etag: stored["etag"])
                if let location: String = stored["location"] { headers[.location] = location }
                if let type: String = stored["contentType"] { headers[.contentType] = type }
                let body: Data = stored["body"]
                return ServiceAnswer(
                    status: stored["status"], headers: headers, body: Array(body), created: stored["created"])
            }
            let answer = try change(db)
            // (a refusal is not kept: the same request, mended, may be sent again under its id)
            if let requestID {
                try db.execute(
                    sql: """
                        INSERT INTO \(Self.repeatabilityTable)
                            (requestID, request, status, etag, location, created, contentType, body)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        requestID, request, answer.status, answer.headers[.eTag], answer.headers[.location],
                        answer.created, answer.headers[.contentType], Data(answer.body),
                    ])
            }
            return answer
        }
    }

    /// What a body sets: the title and the car (each may be null); what the service keeps (the key, which copy it is,
    /// the version) is left alone, as CAP ignores what is computed. Anything else is a `400`.
    struct Fields: Sendable {
        var title: String??
        var carID: Int64??
    }

    static func fields(of body: [UInt8]) throws -> Fields {
        var fields = Fields()
        for member in try EntityWriter.object(of: body).members {
            switch (member.key, member.value) {
            case _ where member.key.hasPrefix("@") || member.key.contains("@"): continue
            case ("ID", _), ("IsActiveEntity", _), ("HasActiveEntity", _), ("HasDraftEntity", _), ("modifiedAt", _):
                continue
            case ("title", .null): fields.title = .some(nil)
            case ("title", .string(let text)):
                guard text.count <= longestTitle else {
                    throw ServiceError.badRequest("title is at most \(longestTitle) characters.")
                }
                fields.title = .some(text)
            case ("carID", .null): fields.carID = .some(nil)
            case ("carID", .number(let text)):
                guard let number = Int64(text), number >= 1, number <= Int64(Int32.max) else {
                    throw ServiceError.badRequest("carID is a whole number from 1 to \(Int32.max).")
                }
                fields.carID = .some(number)
            case ("title", _), ("carID", _):
                throw ServiceError.badRequest("\(member.key) cannot be \(member.value.kindName).")
            default:
                throw ServiceError.badRequest("A work order has no property '\(member.key)'.")
            }
        }
        return fields
    }

    /// A new work order: a draft with the next number, its `HasActiveEntity` false, until it is activated.
    private func create(_ fields: Fields, _ write: WriteRequest, _ db: Database) throws -> ServiceAnswer {
        guard try Int.fetchOne(db, sql: "SELECT count(*) FROM \(Self.table)") ?? 0 < Self.mostOrders else {
            throw ServiceError(
                status: 507, code: "TooManyWorkOrders",
                message: "The workshop keeps at most \(Self.mostOrders) work orders: delete some first.")
        }
        // (the next number never given: one deleted is not given again)
        let next = try Int64.fetchOne(db, sql: "SELECT next FROM \(Self.counterTable)") ?? 1
        try db.execute(sql: "UPDATE \(Self.counterTable) SET next = ?", arguments: [next + 1])
        let now = Self.now()
        var draft = Order(id: next, isActive: false, title: nil, carID: nil, modifiedAt: now)
        if let title = fields.title { draft.title = title }
        if let car = fields.carID { draft.carID = car }
        draft.heldBy = Self.user
        draft.draftSince = now
        try Self.insert(draft, db)
        return answer(draft, status: 201, write, location: true)
    }

    private func act(
        _ name: String, id: Int64, isActive: Bool, preserve: Bool, ifMatch: String?, _ write: WriteRequest,
        _ db: Database
    ) throws -> ServiceAnswer {
        if name == "draftEdit" {
            guard isActive else {
                throw ServiceError.badRequest("draftEdit is invoked on the active work order (IsActiveEntity=true).")
            }
            guard var active = try Self.order(id: id, isActive: true, db) else {
                throw ServiceError.notFound("There is no work order \(id).")
            }
            // (another's lock first: it is why the edit cannot be made, whatever the version)
            let existing = try Self.order(id: id, isActive: false, db)
            if let existing { try Self.checkHeld(existing) }
            try Self.check(ifMatch, active)
            if existing != nil {
                if preserve {
                    throw ServiceError(
                        status: 409, code: "DraftExists", message: "Work order \(id) has a draft of yours already.")
                }
                // (PreserveChanges false: your own draft is dropped and made anew from the active one)
                try Self.delete(id: id, isActive: false, db)
            }
            let now = Self.now()
            var draft = active
            draft.isActive = false
            draft.hasActive = true
            draft.hasDraft = false
            draft.modifiedAt = now
            draft.heldBy = Self.user
            draft.draftSince = now
            try Self.insert(draft, db)
            active.hasDraft = true
            try Self.update(active, db)
            return answer(draft, status: 201, write, location: true)
        }
        guard !isActive else {
            throw ServiceError.badRequest("\(name) is invoked on a draft (IsActiveEntity=false).")
        }
        guard let draft = try Self.order(id: id, isActive: false, db) else {
            throw ServiceError.notFound("Work order \(id) has no draft.")
        }
        try Self.checkHeld(draft)
        try Self.check(ifMatch, draft)
        if name == "draftPrepare" { return answer(draft, status: 200, write) }
        // draftActivate: what a work order needs, then the draft's values are the active one's
        guard let title = draft.title, !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ServiceError(status: 400, code: "TitleRequired", message: "A work order needs a title.")
        }
        guard let car = draft.carID else {
            throw ServiceError(status: 400, code: "CarRequired", message: "A work order needs a car (its car number).")
        }
        guard try Int64.fetchOne(db, sql: "SELECT carID FROM \"Car\" WHERE carID = ?", arguments: [car]) != nil else {
            throw ServiceError(status: 400, code: "NoSuchCar", message: "There is no car \(car).")
        }
        var active = try Self.order(id: id, isActive: true, db)
        let stamp = max(Self.now(), (active?.modifiedAt ?? 0) + 1)
        let isNew = active == nil
        if isNew {
            active = Order(id: id, isActive: true, title: title, carID: car, modifiedAt: stamp)
            try Self.insert(active!, db)
        } else {
            active!.title = title
            active!.carID = car
            active!.hasDraft = false
            active!.modifiedAt = stamp
            try Self.update(active!, db)
        }
        try Self.delete(id: id, isActive: false, db)
        // (a new one made active: 201 and where it is, as CAP answers; an edited one: 200)
        return answer(active!, status: isNew ? 201 : 200, write, location: isNew)
    }

    private func patch(
        id: Int64, _ fields: Fields, ifMatch: String?, _ write: WriteRequest, _ db: Database
    ) throws -> ServiceAnswer {
        guard var draft = try Self.order(id: id, isActive: false, db) else {
            throw ServiceError.notFound("Work order \(id) has no draft.")
        }
        try Self.checkHeld(draft)
        try Self.check(ifMatch, draft)
        if let title = fields.title { draft.title = title }
        if let car = fields.carID { draft.carID = car }
        draft.modifiedAt = max(Self.now(), draft.modifiedAt + 1)
        try Self.update(draft, db)
        return answer(draft, status: 200, write)
    }

    private func delete(
        id: Int64, isActive: Bool, ifMatch: String?, _ write: WriteRequest, _ db: Database
    ) throws -> ServiceAnswer {
        guard let order = try Self.order(id: id, isActive: isActive, db) else {
            throw ServiceError.notFound("There is no work order \(id)\(isActive ? "" : " in draft").")
        }
        let draft = isActive ? try Self.order(id: id, isActive: false, db) : order
        if let draft { try Self.checkHeld(draft) }
        try Self.check(ifMatch, order)
        if isActive {
            try db.execute(sql: "DELETE FROM \(Self.table) WHERE ID = ?", arguments: [id])
        } else {
            try Self.delete(id: id, isActive: false, db)
            try db.execute(
                sql: "UPDATE \(Self.table) SET HasDraftEntity = 0 WHERE ID = ? AND IsActiveEntity = 1", arguments: [id])
        }
        return ServiceAnswer(status: 204, headers: ODataResponder.writeHeaders(write, etag: nil), body: [])
    }

    /// `423 Locked` when someone else edits `draft`.
    private static func checkHeld(_ draft: Order) throws {
        guard let holder = draft.heldBy, holder != user else { return }
        let since = draft.draftSince.map {
            " since "
                + ODataInstant(millisecondsSince1970: $0).iso8601(withOffset: false).prefix(16)
                .replacingOccurrences(of: "T", with: " ") + " UTC"
        }
        throw ServiceError(
            status: 423, code: "DraftLocked",
            message: "Work order \(draft.id) is locked: \(holder) is editing its draft\(since ?? "").")
    }

    /// `412` when `ifMatch` names another version than `order`'s (`*` and none match any).
    private static func check(_ ifMatch: String?, _ order: Order) throws {
        // (the tag matching a conditional GET's, weak or strong alike)
        guard let ifMatch, !ODataResponder.matches(ifMatch, order.etag) else { return }
        throw ServiceError(
            status: 412, code: "PreconditionFailed",
            message: "Work order \(order.id) was changed since it was read (its version is \(order.etag)).")
    }

    private func answer(_ order: Order, status: Int, _ write: WriteRequest, location: Bool = false) -> ServiceAnswer {
        var headers = ODataResponder.writeHeaders(write, etag: order.etag)
        headers[.contentType] = "application/json;odata.metadata=minimal;charset=utf-8"
        if location { headers[.location] = write.serviceRoot + order.predicate }
        return ServiceAnswer(
            status: status, headers: headers, body: Self.document(order, serviceRoot: write.serviceRoot),
            created: location ? order.predicate : nil)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
