import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import ODataCore

/// A write as the service takes it: from a request of its own, or from a part of a `$batch`.
struct WriteRequest: Sendable {
    /// The verb, tunnelled ones (`X-HTTP-Method`) already applied.
    var method: ServiceMethod
    /// The path under the service root, without a leading slash (`Car(1)`, `Person(1)/$links/Cars`).
    var relative: String
    var dialect: ODataDialect
    var headers: HTTPFields
    var body: [UInt8]
    /// `http://host/CarDealer.svc/`: where `Location` and the answer's URIs point.
    var serviceRoot: String
    /// The query, when there is one (a v2 action's parameters are there).
    var query: String?
}

/// An answer before it is an HTTP response: what a request alone answers, and what a `$batch` writes into its parts.
struct ServiceAnswer: Sendable {
    var status: Int
    var headers: HTTPFields
    var body: [UInt8]
    /// Where the entity a create made is, relative to the service root (`Car(9)`), for `$<Content-ID>` references.
    var created: String?

    var response: Response {
        var headers = headers
        if !body.isEmpty { headers[.contentLength] = String(body.count) }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension ODataResponder {
    /// A write checked and resolved (`400`, `404`, `405` thrown as ``ServiceError``), as a step to run in a
    /// transaction: alone, or with the other writes of a `$batch` changeset.
    func planWrite(_ write: WriteRequest) throws -> @Sendable (Database) throws -> ServiceAnswer {
        let unescaped = write.relative.replacingOccurrences(of: "%24", with: "$", options: .caseInsensitive)
        if unescaped.split(separator: "/").contains("$links") {
            guard write.dialect == .v2 else { throw ServiceError.notFound("$links is OData v2's; v4 links with $ref.") }
            return try planLink(write)
        }
        if unescaped.hasSuffix("/$ref") {
            throw ServiceError.notImplemented("$ref is not supported here; link with @odata.bind in a create.")
        }
        if write.dialect == .v4, let workOrders = engine.schema.workOrders {
            var relative = unescaped
            for (escape, character) in [("%28", "("), ("%29", ")"), ("%27", "'")] {
                relative = relative.replacingOccurrences(of: escape, with: character, options: .caseInsensitive)
            }
            if let target = try workOrders.target(relative) { return try workOrders.plan(write, target: target) }
        }
        if write.method == .post, engine.schema.offersRecordService {
            var relative = unescaped
            for (escape, character) in [("%28", "("), ("%29", ")")] {
                relative = relative.replacingOccurrences(of: escape, with: character, options: .caseInsensitive)
            }
            if let call = try RecordServiceAction.call(
                relative, query: write.query, body: write.body, dialect: write.dialect,
                namespace: engine.schema.namespace)
            {
                return planRecordService(write, car: call.car, mileage: call.mileage)
            }
        }
        if write.method == .post { return try planCreate(write) }
        return try planChange(write)
    }

    /// The versions header and, for a write sent with a request id, `Repeatability-Result`.
    static func writeHeaders(_ write: WriteRequest, etag: String?) -> HTTPFields {
        var headers = HTTPFields()
        AnswerVersion(write.dialect).declare(in: &headers)
        if let etag { headers[.eTag] = etag }
        if write.headers[.repeatabilityRequestID] != nil { headers[.repeatabilityResult] = "accepted" }
        return headers
    }

    /// A car's standard service recorded (``RecordServiceAction``): `200` with the record made.
    private func planRecordService(
        _ write: WriteRequest, car: Int64, mileage: Int64
    ) -> @Sendable (Database) throws -> ServiceAnswer {
        let isVersion2 = write.dialect == .v4 || Self.clientAcceptsVersion2(write.headers)
        let payload = PayloadWriter(
            schema: engine.schema, serviceRoot: write.serviceRoot, isVersion2: isVersion2, dialect: write.dialect)
        let (engine, writer) = (self.engine, self.writer)
        return { db in
            let record = try RecordServiceAction.run(
                car: car, mileage: mileage, ifMatch: write.headers[.ifMatch],
                requestID: write.headers[.repeatabilityRequestID], writer: writer, db)
            let made = ResourcePath(entitySet: "Maintenance", key: [.init(name: nil, value: .int(record))])
            guard case .entity(let node) = try engine.execute(made, QueryRequest(query: nil), db) else {
                throw ServiceError.notFound("Maintenance(\(record)) does not exist.")
            }
            var headers = Self.writeHeaders(write, etag: payload.etag(node))
            headers[.contentType] = "application/json;charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return ServiceAnswer(
                status: 200, headers: headers, body: payload.entityDocument(node, select: PathTree(paths: [])))
        }
    }

    /// A change or delete of one entity (`Set(key)`): 204 with its new ETag (see ``EntityWriter``).
    private func planChange(_ write: WriteRequest) throws -> @Sendable (Database) throws -> ServiceAnswer {
        let method = write.method
        guard [.merge, .patch, .put, .delete].contains(method) else {
            throw ServiceError.methodNotAllowed(method.rawValue)
        }
        let path = ResourcePath.parse(relative: write.relative)
        let change: EntityWriter.Change = method == .delete ? .delete : method == .put ? .replace : .merge
        if write.dialect == .v4, let path, let (container, set, key) = try contained(path) {
            // A contained entity, through its principal (`Car(3)/Options(7)`): it must be inside that one.
            let step = try writer.writing(
                change, set: set, key: key, body: write.body, ifMatch: write.headers[.ifMatch],
                requestID: write.headers[.repeatabilityRequestID])
            return { db in
                try container.check(key, db)
                let outcome = try step(db)
                return ServiceAnswer(
                    status: outcome.status, headers: Self.writeHeaders(write, etag: outcome.etag), body: [])
            }
        }
        guard let path, path.segments.count == 1, let segment = path.segments.first,
            let set = engine.schema.entitySet(segment.name), let key = segment.key
        else {
            throw ServiceError.badRequest(
                "\(method) applies to one entity, addressed as Set(key): not '\(write.relative)'.")
        }
        try refuseContained(set, dialect: write.dialect)
        let keyValue = try engine.keyValue(key, set)
        let step = try writer.writing(
            change, set: set, key: keyValue, body: write.body, ifMatch: write.headers[.ifMatch],
            requestID: write.headers[.repeatabilityRequestID])
        return { db in
            let outcome = try step(db)
            return ServiceAnswer(
                status: outcome.status, headers: Self.writeHeaders(write, etag: outcome.etag), body: [])
        }
    }

    /// A create: `POST /Set`, or `POST /Parent(k)/Navigation` for one linked to its parent (see
    /// ``EntityWriter/create(set:body:parent:requestID:)``). `201` with the entity, its `Location` and `ETag`.
    private func planCreate(_ write: WriteRequest) throws -> @Sendable (Database) throws -> ServiceAnswer {
        let relative = write.relative
        guard let path = ResourcePath.parse(relative: relative), (1...2).contains(path.segments.count) else {
            throw ServiceError.badRequest("POST creates in Set or Parent(key)/Navigation: not '\(relative)'.")
        }
        let set: EntitySetSchema
        var parent: EntityWriter.CreateParent?
        let first = path.segments[0]
        guard let firstSet = engine.schema.entitySet(first.name) else {
            throw ServiceError.notFound("There is no entity set \(first.name).")
        }
        if path.segments.count == 2 {
            let navigation = path.segments[1].name
            guard let key = first.key, path.segments[1].key == nil,
                let relation = engine.schema.relations.first(where: {
                    $0.principal == firstSet.name && $0.principalNavigation == navigation
                }),
                let dependent = engine.schema.entitySet(relation.dependent)
            else {
                throw ServiceError.badRequest(
                    "POST to Parent(key)/Navigation needs a navigation to many of \(firstSet.name): not '\(relative)'.")
            }
            let principalKey = try engine.keyValue(key, firstSet)
            set = dependent
            parent = EntityWriter.CreateParent(relation: relation, principalKey: principalKey)
        } else {
            guard first.key == nil else {
                throw ServiceError.methodNotAllowed("POST to one entity (\(relative)); MERGE or PUT change it")
            }
            try refuseContained(firstSet, dialect: write.dialect)
            set = firstSet
        }
        // (v4 names a contained entity by the path to it: `Car(3)/Options(7)`)
        let containerPath =
            write.dialect == .v4 && parent?.relation.isContainment == true
            ? "\(firstSet.name)(\(parent!.principalKey))/\(path.segments[1].name)" : nil
        let step = try writer.creating(
            set: set, body: write.body, parent: parent, requestID: write.headers[.repeatabilityRequestID])
        let isVersion2 = write.dialect == .v4 || Self.clientAcceptsVersion2(write.headers)
        let payload = PayloadWriter(
            schema: engine.schema, serviceRoot: write.serviceRoot, isVersion2: isVersion2, dialect: write.dialect)
        let engine = self.engine
        return { db in
            let made = try step(db)
            let created = ResourcePath(entitySet: set.name, key: [.init(name: nil, value: .int(made.key))])
            guard case .entity(let node) = try engine.execute(created, QueryRequest(query: nil), db) else {
                throw ServiceError.notFound("\(set.name)(\(made.key)) does not exist.")
            }
            var headers = Self.writeHeaders(write, etag: payload.etag(node))
            if write.dialect == .v2 { AnswerVersion.version1.declare(in: &headers) }
            headers[.contentType] = "application/json;charset=utf-8"
            headers[.cacheControl] = "no-cache"
            let address = "\(containerPath ?? set.name)(\(made.key))"
            headers[.location] = payload.serviceRoot + address
            return ServiceAnswer(
                status: 201, headers: headers, body: payload.entityDocument(node, select: PathTree(paths: [])),
                created: address)
        }
    }

    /// `Set(key)/$links/Navigation[(key)]` resolved.
    private func linkAddress(_ relative: String) throws -> EntityWriter.LinkAddress {
        var unescaped = relative
        for (escape, character) in [("%28", "("), ("%29", ")"), ("%27", "'"), ("%24", "$")] {
            unescaped = unescaped.replacingOccurrences(of: escape, with: character, options: .caseInsensitive)
        }
        guard let path = ResourcePath.parse(relative: unescaped), path.segments.count == 3,
            path.segments[1].name == "$links", path.segments[1].key == nil,
            let source = engine.schema.entitySet(path.segments[0].name), let sourceKey = path.segments[0].key
        else {
            throw ServiceError.badRequest(
                "A link is addressed as Set(key)/$links/Navigation: not '\(PercentEncoding.decode(relative))'.")
        }
        var address = try writer.linkAddress(
            source: source, key: try engine.keyValue(sourceKey, source), navigation: path.segments[2].name,
            target: nil)
        if let targetKey = path.segments[2].key {
            guard !address.fromDependent, let dependent = engine.schema.entitySet(address.relation.dependent) else {
                throw ServiceError.badRequest(
                    "\(source.name).\(path.segments[2].name) links one entity: no key after it.")
            }
            address.target = try engine.keyValue(targetKey, dependent)
        }
        return address
    }

    /// A write of a link (see ``EntityWriter/writeLink``).
    private func planLink(_ write: WriteRequest) throws -> @Sendable (Database) throws -> ServiceAnswer {
        let step = try writer.linking(
            write.method, try linkAddress(write.relative), body: write.body,
            requestID: write.headers[.repeatabilityRequestID])
        return { db in
            let outcome = try step(db)
            var headers = Self.writeHeaders(write, etag: outcome.etag)
            AnswerVersion.version1.declare(in: &headers)
            return ServiceAnswer(status: outcome.status, headers: headers, body: [])
        }
    }

    /// `Set(key)/$links/Navigation[(key)]` read: the URIs of the linked entities.
    func links(_ request: Request, relative: String) async throws -> Response {
        let address = try linkAddress(relative)
        let host = request.head.authority ?? "127.0.0.1"
        let root = "http://\(host)\(Self.servicePath)/"
        let keys = try await writer.linkedKeys(address)
        let linked = address.fromDependent ? address.relation.principal : address.relation.dependent
        let uris = keys.map { #"{"uri":"# + Self.jsonString(root + "\(linked)(\($0))") + "}" }
        let isVersion2 = Self.clientAcceptsVersion2(request.headers)
        let body: String
        if address.fromDependent || address.target != nil {
            guard let uri = uris.first else {
                throw ServiceError.notFound("\(PercentEncoding.decode(relative)) links nothing.")
            }
            body = #"{"d":"# + uri + "}"
        } else {
            let list = "[" + uris.joined(separator: ",") + "]"
            body = isVersion2 ? #"{"d":{"results":"# + list + "}}" : #"{"d":"# + list + "}"
        }
        return respond(request, body: Array(body.utf8), version: isVersion2 ? .version2 : .version1, etag: nil)
    }

    /// A v4 path to a contained entity, `Principal(k)/Navigation(key)`: the principal it must be inside, the set and
    /// the key; nil for any other path.
    func contained(_ path: ResourcePath) throws -> (ContainerCheck, EntitySetSchema, Int64)? {
        guard path.segments.count == 2, let principal = engine.schema.entitySet(path.segments[0].name),
            let principalKey = path.segments[0].key, let key = path.segments[1].key,
            let navigation = engine.schema.navigation(path.segments[1].name, from: principal.name),
            navigation.isCollection, navigation.relation.isContainment,
            let set = engine.schema.entitySet(navigation.target)
        else { return nil }
        let relation = navigation.relation
        let check = ContainerCheck(
            set: set, relation: relation, principal: try engine.keyValue(principalKey, principal),
            name: ResourcePath(segments: [path.segments[0]]).canonical)
        return (check, set, try engine.keyValue(key, set))
    }

    /// v4 has no set of contained entities: they are reached through their principal.
    func refuseContained(_ set: EntitySetSchema, dialect: ODataDialect) throws {
        guard dialect == .v4, let relation = engine.schema.containment(of: set.name) else { return }
        throw ServiceError.notFound(
            "There is no entity set '\(set.name)': each lives in its \(relation.principal), as "
                + "\(relation.principal)(key)/\(relation.principalNavigation).")
    }
}

/// That a contained entity is inside the principal its path names.
struct ContainerCheck: Sendable {
    var set: EntitySetSchema
    var relation: RelationSchema
    var principal: Int64
    /// `Car(3)`, for the sentence.
    var name: String

    func check(_ key: Int64, _ db: Database) throws {
        let inside = try Int.fetchOne(
            db,
            sql:
                "SELECT 1 FROM \(quoted(set.name)) WHERE \(quoted(set.key)) = ? AND \(quoted(relation.foreignKey)) = ?",
            arguments: [key, principal])
        guard inside != nil else {
            throw ServiceError.notFound("\(name) has no \(relation.principalNavigation)(\(key)).")
        }
    }
}
