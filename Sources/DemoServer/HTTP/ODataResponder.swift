import Foundation
import Hummingbird
import ODataCore

/// The whole HTTP surface of the service: one responder for every path under `/CarDealer.svc/` (OData v2) and
/// `/v4/CarDealer.svc/` (the same data as OData v4).
///
/// It checks the method and URL limits, injects latency and faults when configured, resolves the
/// resource, and answers with verbose JSON (or EDMX for `$metadata`), an ETag, and 304 when the
/// client's `If-None-Match` matches. Every refusal is an OData error body with its proper status. At the v4 root
/// the same answers come in v4's shapes (``PayloadWriter``), with `OData-Version: 4.0`.
public struct ODataResponder: HTTPResponder {
    public typealias Context = BasicRequestContext

    /// The path prefix of the service root.
    public static let servicePath = "/CarDealer.svc"
    /// The path prefix of the same service in OData v4.
    public static let version4Path = "/v4/CarDealer.svc"

    /// The root a request path is under, and its dialect.
    static func root(of path: String) -> (prefix: String, dialect: ODataDialect) {
        if path == version4Path || path.hasPrefix(version4Path + "/") { return (version4Path, .v4) }
        return (servicePath, .v2)
    }
    /// Longest accepted request target (path and query), in bytes.
    static let maximumURLLength = 8 * 1024

    let engine: QueryEngine
    let faults: FaultInjector
    let metadata: [UInt8]
    let metadataVersion4: [UInt8]
    let writer: EntityWriter

    /// Every change is refused (`--read-only`).
    let readOnly: Bool

    init(engine: QueryEngine, faults: FaultInjector, readOnly: Bool = false) {
        self.readOnly = readOnly
        self.engine = engine
        self.faults = faults
        self.metadata = Array(engine.schema.edmx.utf8)
        self.metadataVersion4 = Array(engine.schema.edmxVersion4.utf8)
        self.writer = EntityWriter(schema: engine.schema, writer: engine.reader)
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        var response = try await respondOnce(to: request, context: context)
        // A filtered read ends its connection (see `answer`): the client is told, so it never reuses it.
        if Self.readsUntilClientGoes(request) { response.headers[.connection] = "close" }
        return response
    }

    /// A `GET` with a `$filter` or a search: read so that the client going away stops the read.
    static func readsUntilClientGoes(_ request: Request) -> Bool {
        guard request.method == .get, let query = request.uri.query?.lowercased() else { return false }
        return ["$filter=", "%24filter=", "$search=", "%24search="].contains { query.contains($0) }
            || query.hasPrefix("search=") || query.contains("&search=")
    }

    private func respondOnce(to request: Request, context: Context) async throws -> Response {
        do {
            let method = try? ServiceMethod(request.method.rawValue, tunnelled: request.headers[.xHTTPMethod])
            let loseAnswer = try await faults.apply(isWrite: method?.changes ?? false)
            let response = try await answer(request)
            if loseAnswer, (200..<300).contains(response.status.code) { return Self.lostAnswer() }
            return response
        } catch let error as ServiceError {
            return Self.errorResponse(error, dialect: Self.root(of: request.uri.path).dialect)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            context.logger.error("Internal error: \(error)")
            return Self.errorResponse(
                ServiceError(status: 500, code: "InternalError", message: "The service failed: \(error)."),
                dialect: Self.root(of: request.uri.path).dialect)
        }
    }

    private func answer(_ request: Request) async throws -> Response {
        guard request.uri.string.utf8.count <= Self.maximumURLLength else {
            throw ServiceError(status: 414, code: "URITooLong", message: "The URL is longer than 8 KB.")
        }
        let path = request.uri.path
        let (rootPath, dialect) = Self.root(of: path)
        guard path == rootPath || path.hasPrefix(rootPath + "/") else {
            throw ServiceError.notFound(
                "Nothing is served at \(path); the service root is \(Self.servicePath)/ (OData v4: "
                    + "\(Self.version4Path)/).")
        }
        let relative = String(path.dropFirst(rootPath.count)).trimmingCharacters(in: "/")
        // `POST` with `X-HTTP-Method` tunnels a verb a proxy would not let through.
        let method = try ServiceMethod(request.method.rawValue, tunnelled: request.headers[.xHTTPMethod])
        let unescapedRelative = relative.replacingOccurrences(of: "%24", with: "$", options: .caseInsensitive)
        if unescapedRelative == "$batch" {
            guard method == .post else { throw ServiceError.methodNotAllowed("\(method) of $batch (POST it)") }
            return try await batch(request, dialect: dialect)
        }
        if readOnly, method.changes {
            throw ServiceError(
                status: 403, code: "ReadOnly",
                message: "This service is read-only (started with --read-only): \(method) changes nothing here.")
        }
        let isLinks = unescapedRelative.split(separator: "/").contains("$links")
        if isLinks, dialect != .v2 { throw ServiceError.notFound("$links is OData v2's; v4 links with $ref.") }
        if isLinks, !method.changes { return try await links(request, relative: String(relative)) }
        if method.changes {
            var body: [UInt8] = []
            if method != .delete {
                do {
                    body = Array(buffer: try await request.body.collect(upTo: EntityWriter.maximumBodyBytes))
                } catch {
                    throw ServiceError(status: 413, code: "PayloadTooLarge", message: "The body is larger than 1 MiB.")
                }
            }
            let write = WriteRequest(
                method: method, relative: String(relative), dialect: dialect, headers: request.headers, body: body,
                serviceRoot: "http://\(request.head.authority ?? "127.0.0.1")\(rootPath)/", query: request.uri.query)
            let step = try planWrite(write)
            return try await writer.writer.write(step).response
        }
        guard request.method == .get || request.method == .head else {
            throw ServiceError.methodNotAllowed(request.method.rawValue)
        }
        var options = try QueryRequest(query: request.uri.query, dialect: dialect)
        let isVersion2 = dialect == .v4 || Self.clientAcceptsVersion2(request.headers)
        let host = request.head.authority ?? "127.0.0.1"
        let writer = PayloadWriter(
            schema: engine.schema, serviceRoot: "http://\(host)\(rootPath)/", isVersion2: isVersion2, dialect: dialect)
        let v4 = dialect == .v4
        if relative.isEmpty {
            return respond(request, body: writer.serviceDocument(), version: AnswerVersion(dialect), etag: nil)
        }
        if relative == "annotations", !v4 {
            // The annotation document, as SAP Gateway publishes a v2 service's (the same blocks `$metadata` holds).
            let document = engine.schema.annotationDocument(metadataURL: "http://\(host)\(rootPath)/$metadata")
            return respond(
                request, body: Array(document.utf8), version: .version4, etag: nil,
                contentType: "application/xml;charset=utf-8")
        }
        if relative == "$metadata" {
            return respond(
                request, body: v4 ? metadataVersion4 : metadata, version: AnswerVersion(dialect, usesVersion2: true),
                etag: nil,
                contentType: "application/xml;charset=utf-8")
        }
        // Some clients (pyodata) percent-encode the key predicate's parentheses and quotes: `Person%281%29`.
        var unescaped = String(relative)
        for (escape, character) in [("%28", "("), ("%29", ")"), ("%27", "'")] {
            unescaped = unescaped.replacingOccurrences(of: escape, with: character, options: .caseInsensitive)
        }
        unescaped = unescaped.replacingOccurrences(of: "%40", with: "@", options: .caseInsensitive)
        if v4, let workOrders = engine.schema.workOrders,
            let target = try workOrders.target(unescaped.replacingOccurrences(of: "%24", with: "$"))
        {
            // The draft-enabled set: read whole and decided in memory (``WorkOrderSet``).
            let root = "http://\(host)\(rootPath)/"
            let query = request.uri.query
            let read = try await engine.reader.read { db in
                try workOrders.read(target, query: query, serviceRoot: root, db)
            }
            if read.body.isEmpty {
                // (a navigation to nothing: no draft, so no administrative data)
                var headers = HTTPFields()
                AnswerVersion.version4.declare(in: &headers)
                return Response(status: .noContent, headers: headers)
            }
            // (revalidated by what the answer says: a work order's version stays when a draft of it is made or dropped,
            // its HasDraftEntity does not)
            var response = respond(
                request, body: read.body, version: .version4, etag: Self.weakETag(of: read.body),
                contentType: read.isText ? "text/plain;charset=utf-8" : "application/json;charset=utf-8")
            if let version = read.etag { response.headers[.eTag] = version }
            return response
        }
        if engine.schema.offersMaintenanceCost,
            let call = try MaintenanceCostFunction.call(
                unescaped, custom: options.custom, dialect: dialect, namespace: engine.schema.namespace)
        {
            // A car's maintenance cost in a year: a value, not a list.
            guard request.method == .get || request.method == .head else {
                throw ServiceError.methodNotAllowed(request.method.rawValue)
            }
            let cents = try await engine.reader.read { db in
                try MaintenanceCostFunction.cents(car: call.car, year: call.year, db)
            }
            guard let cents else { throw ServiceError.notFound("There is no car \(call.car).") }
            let root = "http://\(host)\(rootPath)/"
            return respond(
                request, body: MaintenanceCostFunction.body(cents: cents, dialect: dialect, root: root),
                version: AnswerVersion(dialect, usesVersion2: true), etag: nil)
        }
        let resourcePath: ResourcePath
        var isCall = false
        if let function = engine.schema.functions.first(where: {
            unescaped == $0.name || unescaped.hasPrefix($0.name + "(")
        }), let value = try function.call(unescaped, custom: options.custom, dialect: dialect) {
            // A function's answer: its set's entities that its filter selects, paged, filtered and sorted as the
            // set's (its next pages call it again: the link keeps its path and parameters).
            resourcePath = ResourcePath(entitySet: function.entitySet)
            let selects = function.filter(value)
            options.filter = options.filter.map { .binary(.and, $0, selects) } ?? selects
            isCall = true
        } else {
            guard let parsed = ResourcePath.parse(relative: unescaped) else {
                throw ServiceError.badRequest("The resource path '\(PercentEncoding.decode(relative))' is malformed.")
            }
            resourcePath = parsed
            if v4, let set = engine.schema.entitySet(parsed.segments[0].name) {
                try refuseContained(set, dialect: dialect)
            }
        }
        // Change tracking on an entity set: the moment taken before the read, so that what changes while it reads is
        // in the next delta.
        let tracks =
            !isCall && resourcePath.segments.count == 1 && resourcePath.segments[0].key == nil
            && (options.deltaToken != nil
                || (request.headers[.prefer] ?? "").lowercased().contains("odata.track-changes"))
        let moment = Int64(Date().timeIntervalSince1970 * 1000)
        let result: QueryResult
        if options.filter != nil || options.searchText != nil, Self.readsUntilClientGoes(request) {
            // A filter can read much of a big table, and a client typing one supersedes it at the next keystroke
            // and drops the request: the read stops when the client goes (SQLite is interrupted). Hummingbird then
            // closes the connection after the answer (the answer says `Connection: close`), so only filtered reads
            // pay for that.
            let engine = self.engine
            result = try await request.body.consumeWithCancellationOnInboundClose { _ in
                try await engine.execute(resourcePath, options)
            }
        } else {
            result = try await engine.execute(resourcePath, options)
        }
        let select = PathTree(paths: options.select)
        switch result {
        case .entity(let node):
            return respond(
                request, body: writer.entityDocument(node, select: select),
                version: AnswerVersion(dialect, usesVersion2: isVersion2), etag: writer.etag(node))
        case .collection(let nodes, let count, let next):
            if next != nil && !isVersion2 {
                throw ServiceError.badRequest(
                    "This collection has more than \(engine.pageSize) entities and needs server paging, which needs "
                        + "DataServiceVersion 2.0: send MaxDataServiceVersion: 2.0, or ask for fewer with $top."
                )
            }
            let nextLink = next.map { nextPageLink(writer.serviceRoot + relative, options, $0) }
            var deltaLink: String?
            var removed: [String] = []
            if tracks, let set = engine.schema.entitySet(resourcePath.segments[0].name) {
                // Where to ask what changed since this moment, on the last page; a delta's deletions on its first.
                if next == nil { deltaLink = self.deltaLink(writer.serviceRoot + set.name, options, moment: moment) }
                if let since = options.deltaToken, options.skipToken == nil {
                    removed = try await engine.reader.read { db in
                        try EntityWriter.deletedKeys(set, since: since, db).map { "\(set.name)(\($0))" }
                    }
                }
            }
            let (body, rows) = writer.collectionDocumentAndRows(
                nodes, count: count, nextLink: nextLink, select: select, deltaLink: deltaLink, removed: removed)
            // The ETag is the rows' (a delta link names the moment it was made, so a page would never be the same):
            // a tracked page revalidates with 304, and the client keeps the link it has.
            let etag = Self.weakETag(of: body[..<rows])
            var response = respond(
                request, body: body, version: AnswerVersion(dialect, usesVersion2: isVersion2), etag: etag)
            if tracks { response.headers[.preferenceApplied] = "odata.track-changes" }
            return response
        case .count(let count):
            return respond(
                request, body: Array(String(count).utf8), version: AnswerVersion(dialect, usesVersion2: true),
                etag: nil,
                contentType: "text/plain;charset=utf-8")
        case .property(let name, let type, let value, let raw):
            if raw {
                let text: String
                switch type.odataValue(value) {
                case .string(let string): text = string
                case .int(let number): text = String(number)
                case .decimal(let decimal): text = decimal
                case .dateTime(let instant): text = instant.iso8601(withOffset: false)
                default: text = ""
                }
                return respond(
                    request, body: Array(text.utf8), version: AnswerVersion(dialect), etag: nil,
                    contentType: "text/plain;charset=utf-8")
            }
            return respond(
                request, body: writer.propertyDocument(name: name, type: type, value: value),
                version: AnswerVersion(dialect), etag: nil)
        }
    }

    /// A JSON string literal of `text`, escaped as the service writes its payloads (``JSONWriter``).
    static func jsonString(_ text: String) -> String { JSONWriter.string(text) }

    /// Where a tracked read asks what changed since `moment`: its `$filter`, `$select` and `$expand`, and the token
    /// (v4 `$deltatoken`, v2 `!deltatoken` as SAP Gateway spells it).
    private func deltaLink(_ base: String, _ options: QueryRequest, moment: Int64) -> String {
        var items: [String] = []
        if let filter = options.filterText { items.append("$filter=" + PercentEncoding.encodeQueryValue(filter)) }
        if let search = options.searchText {
            items.append((options.dialect == .v4 ? "$search=" : "search=") + PercentEncoding.encodeQueryValue(search))
        }
        if !options.select.isEmpty {
            items.append("$select=" + PercentEncoding.encodeQueryValue(options.select.joined(separator: ",")))
        }
        if let expand = options.expandText { items.append("$expand=" + PercentEncoding.encodeQueryValue(expand)) }
        items.append(options.dialect == .v4 ? "$deltatoken=D\(moment)" : "!deltatoken='D\(moment)'")
        return base + "?" + items.joined(separator: "&")
    }

    /// The service root-relative URL of the next page: the same options, `$skip` dropped, `$top` reduced.
    private func nextPageLink(_ base: String, _ options: QueryRequest, _ next: NextPage) -> String {
        var items: [String] = []
        func add(_ name: String, _ value: String?) {
            if let value { items.append(name + "=" + PercentEncoding.encodeQueryValue(value)) }
        }
        add("$filter", options.filterText)
        add(options.dialect == .v4 ? "$search" : "search", options.searchText)
        add("$orderby", options.orderByText)
        if options.dialect == .v4 {
            add("$expand", options.expandText)
        } else if !options.expand.isEmpty {
            add("$expand", options.expand.joined(separator: ","))
        }
        if !options.select.isEmpty { add("$select", options.select.joined(separator: ",")) }
        if options.inlineCount {
            add(options.dialect == .v4 ? "$count" : "$inlinecount", options.dialect == .v4 ? "true" : "allpages")
        }
        add("$top", next.remainingTop.map(String.init))
        add("$skiptoken", next.skipToken)
        if let token = options.deltaToken {
            items.append(options.dialect == .v4 ? "$deltatoken=D\(token)" : "!deltatoken='D\(token)'")
        }
        for (name, value) in options.custom { add(PercentEncoding.encodeQueryValue(name), value) }
        return base + "?" + items.joined(separator: "&")
    }
}
