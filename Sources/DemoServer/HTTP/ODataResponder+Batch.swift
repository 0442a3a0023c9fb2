import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import ODataCore

/// `POST $batch`: many writes in one exchange, in both of OData's formats.
///
/// * **multipart/mixed** (v2 and v4): each changeset a nested multipart of `application/http` requests; a part
///   outside a changeset is a changeset of one. The answer is `202` with a part per changeset: a multipart of
///   every answer when it was applied, the one error that stopped it when it was not (as SAP Gateway answers).
/// * **JSON** (v4.01): `{"requests":[…]}`, a changeset being the requests that share an `atomicityGroup`; the
///   answer `{"responses":[…]}`, a refused group answered by its refused request alone.
///
/// A batch is applied in one SQLite transaction, each changeset under a savepoint of its own: all of a changeset, or
/// (rolled back to its savepoint) none of it. A later request may
/// name what an earlier one in its changeset made as `$<Content-ID>` — at the start of its URL, or as the whole
/// value of a binding in its body (`"Car@odata.bind":"$1"`, `"Car":{"__metadata":{"uri":"$1"}}`). Reads are not
/// served inside a batch (an answer of 501 each, the rest goes on). `--latency` and `--fail-rate` apply to a batch
/// as to any one write: delayed, refused, or its answer lost after it was committed.
extension ODataResponder {
    /// The largest batch body taken, and the most requests in one.
    static let maximumBatchBytes = 16 << 20
    static let maximumBatchRequests = 1_000

    /// A changeset carried out: an answer per request, or the one of the request that stopped it.
    struct BatchResult: Sendable {
        var members: [BatchMember]
        var answers: [ServiceAnswer]
        var stoppedAt: Int?
    }

    /// One request of a batch, and the changeset it belongs to.
    struct BatchMember: Sendable {
        var id: String?
        var group: Int
        var write: WriteRequest?
        /// Why it cannot be carried out (a malformed part, a read): its answer without touching the data.
        var refusal: ServiceError?
    }

    func batch(_ request: Request, dialect: ODataDialect) async throws -> Response {
        if readOnly {
            throw ServiceError(
                status: 403, code: "ReadOnly",
                message: "This service is read-only (started with --read-only): a $batch changes nothing here.")
        }
        let body: [UInt8]
        do {
            body = Array(buffer: try await request.body.collect(upTo: Self.maximumBatchBytes))
        } catch {
            throw ServiceError(status: 413, code: "PayloadTooLarge", message: "The batch is larger than 16 MiB.")
        }
        let root = Self.root(of: request.uri.path).prefix
        let serviceRoot = "http://\(request.head.authority ?? "127.0.0.1")\(root)/"
        let contentType = request.headers[.contentType] ?? ""
        let json = contentType.lowercased().hasPrefix("application/json")
        let members =
            json
            ? try jsonMembers(body, dialect: dialect, serviceRoot: serviceRoot)
            : try multipartMembers(body, contentType: contentType, dialect: dialect, serviceRoot: serviceRoot)
        guard members.count <= Self.maximumBatchRequests else {
            throw ServiceError(
                status: 413, code: "PayloadTooLarge",
                message: "The batch holds \(members.count) requests; at most \(Self.maximumBatchRequests) are taken.")
        }
        var changesets: [[BatchMember]] = []
        for member in members {
            if let last = changesets.last?.last, last.group == member.group {
                changesets[changesets.count - 1].append(member)
            } else {
                changesets.append([member])
            }
        }
        // One transaction for the batch, a savepoint for each changeset: a refused one is rolled back alone.
        let (responder, grouped) = (self, changesets)
        let results = try await writer.writer.write { db in
            try grouped.map { try responder.apply($0, dialect: dialect, db) }
        }
        return json ? jsonAnswer(results) : multipartAnswer(results, dialect: dialect)
    }

    /// Carries out one changeset under a savepoint. Returns an answer per request, or the one answer of the
    /// request that stopped it (`stoppedAt`), everything before it rolled back.
    func apply(_ changeset: [BatchMember], dialect: ODataDialect, _ db: Database) throws -> BatchResult {
        var made: [String: String] = [:]
        var answers: [ServiceAnswer] = []
        var stopped: (answer: ServiceAnswer, index: Int)?
        try db.inSavepoint {
            for (index, member) in changeset.enumerated() {
                do {
                    if let refusal = member.refusal { throw refusal }
                    guard var write = member.write else { throw ServiceError.badRequest("An empty request.") }
                    Self.resolveReferences(&write, made: made)
                    let answer = try planWrite(write)(db)
                    if let id = member.id, let created = answer.created { made[id] = created }
                    answers.append(answer)
                } catch let error as ServiceError {
                    stopped = (Self.errorAnswer(error, dialect: dialect), index)
                    return .rollback
                }
            }
            return .commit
        }
        if let stopped { return BatchResult(members: changeset, answers: [stopped.answer], stoppedAt: stopped.index) }
        return BatchResult(members: changeset, answers: answers, stoppedAt: nil)
    }

    /// `$1` at the start of the URL, or as a binding's whole value in the body, becomes what request 1 made.
    static func resolveReferences(_ write: inout WriteRequest, made: [String: String]) {
        guard !made.isEmpty else { return }
        if write.relative.hasPrefix("$") {
            let head = write.relative.dropFirst().prefix { $0 != "/" }
            if let target = made[String(head)] { write.relative = target + write.relative.dropFirst(head.count + 1) }
        }
        guard var text = String(bytes: write.body, encoding: .utf8), text.contains("\"$") else { return }
        for (id, target) in made {
            text = text.replacingOccurrences(of: "\"$\(id)\"", with: jsonString(write.serviceRoot + target))
        }
        write.body = Array(text.utf8)
    }

    // MARK: Reading the batch

    func multipartMembers(
        _ body: [UInt8], contentType: String, dialect: ODataDialect, serviceRoot: String
    ) throws -> [BatchMember] {
        guard contentType.lowercased().hasPrefix("multipart/mixed"), let boundary = Multipart.boundary(of: contentType)
        else {
            throw ServiceError.badRequest(
                "A $batch is multipart/mixed with a boundary, or (OData 4.01) application/json.")
        }
        let parts: [Multipart.Part]
        do {
            parts = try Multipart.parts(of: body[...], boundary: boundary)
        } catch {
            throw ServiceError.badRequest("The $batch cannot be read: \(error.reason).")
        }
        var members: [BatchMember] = []
        for (group, part) in parts.enumerated() {
            let type = part.headers["content-type"] ?? ""
            if type.lowercased().hasPrefix("multipart/") {
                guard let inner = Multipart.boundary(of: type) else {
                    throw ServiceError.badRequest("A changeset of the $batch has no boundary.")
                }
                let requests: [Multipart.Part]
                do {
                    requests = try Multipart.parts(of: part.body, boundary: inner)
                } catch {
                    throw ServiceError.badRequest("A changeset of the $batch cannot be read: \(error.reason).")
                }
                for request in requests {
                    members.append(member(request, group: group, dialect: dialect, serviceRoot: serviceRoot))
                }
            } else {
                members.append(member(part, group: group, dialect: dialect, serviceRoot: serviceRoot))
            }
        }
        return members
    }

    private func member(_ part: Multipart.Part, group: Int, dialect: ODataDialect, serviceRoot: String) -> BatchMember {
        let id = part.headers["content-id"]
        if (part.headers["content-type"] ?? "").lowercased().hasPrefix("multipart/") {
            return BatchMember(
                id: id, group: group, refusal: .badRequest("A changeset cannot hold another changeset."))
        }
        do {
            let request = try Multipart.request(in: part.body)
            return member(
                id: id, group: group, method: request.method, target: request.target, headers: request.headers,
                body: request.body, dialect: dialect, serviceRoot: serviceRoot)
        } catch {
            return BatchMember(id: id, group: group, refusal: .badRequest("A part of the $batch: \(error.reason)."))
        }
    }

    /// One request of the batch as a write (or the reason it is not one).
    func member(
        id: String?, group: Int, method: String, target: String, headers given: [String: String], body: [UInt8],
        dialect: ODataDialect, serviceRoot: String
    ) -> BatchMember {
        var headers = HTTPFields()
        for (name, value) in given {
            if let field = HTTPField.Name(name) { headers[field] = value }
        }
        guard let method = try? ServiceMethod(method, tunnelled: headers[.xHTTPMethod]), method.changes else {
            return BatchMember(
                id: id, group: group,
                refusal: ServiceError(
                    status: 501, code: "NotImplemented",
                    message: "\(method.uppercased()) is not served inside a $batch here: send reads alone."))
        }
        // The target: relative to the service root, or an absolute path or URL under it.
        let rootPath = String(serviceRoot.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })  // `/CarDealer.svc/`
        var relative = target
        if relative.hasPrefix(serviceRoot) {
            relative = String(relative.dropFirst(serviceRoot.count))
        } else if relative.hasPrefix(rootPath) {
            relative = String(relative.dropFirst(rootPath.count))
        }
        if relative.hasPrefix("/") || relative.contains("://") {
            return BatchMember(
                id: id, group: group,
                refusal: .badRequest("\(PercentEncoding.decode(target)) is not under this service's root."))
        }
        let query = relative.firstIndex(of: "?").map { String(relative[relative.index(after: $0)...]) }
        let write = WriteRequest(
            method: method, relative: String(relative.prefix { $0 != "?" }), dialect: dialect, headers: headers,
            body: body, serviceRoot: serviceRoot, query: query)
        return BatchMember(id: id, group: group, write: write)
    }

    func jsonMembers(_ body: [UInt8], dialect: ODataDialect, serviceRoot: String) throws -> [BatchMember] {
        let document: JSONValue
        do {
            document = try JSONReader(maximumDepth: 64).read(body)
        } catch {
            throw ServiceError.badRequest("The $batch is not JSON: \(error.description)")
        }
        guard case .array(let requests)? = document["requests"] else {
            throw ServiceError.badRequest(#"A JSON $batch holds a "requests" array."#)
        }
        var members: [BatchMember] = []
        var groups: [String: Int] = [:]
        var lastGroup: String?
        for (position, entry) in requests.enumerated() {
            guard case .object(let object) = entry, case .string(let method)? = object["method"],
                case .string(let url)? = object["url"]
            else {
                throw ServiceError.badRequest("Request \(position + 1) of the $batch has no method or url.")
            }
            var id: String?
            if case .string(let given)? = object["id"] { id = given }
            // Requests that share an atomicity group, one after another, are one changeset; any other is its own.
            var group = members.count + requests.count
            if case .string(let name)? = object["atomicityGroup"] {
                if let known = groups[name] {
                    guard lastGroup == name else {
                        throw ServiceError.badRequest("The requests of atomicity group \(name) are not together.")
                    }
                    group = known
                } else {
                    groups[name] = group
                }
                lastGroup = name
            } else {
                lastGroup = nil
            }
            let (headers, bytes) = ODataBatch.jsonPart(object)
            members.append(
                member(
                    id: id, group: group, method: method, target: url, headers: headers, body: bytes,
                    dialect: dialect, serviceRoot: serviceRoot))
        }
        return members
    }

    // MARK: Writing the answer

    func multipartAnswer(
        _ results: [BatchResult], dialect: ODataDialect
    ) -> Response {
        let boundary = "batchresponse_" + UUID().uuidString
        var out: [UInt8] = []
        func line(_ text: String = "") { out += Array(text.utf8) + [13, 10] }
        func part(_ answer: ServiceAnswer, id: String?) {
            line("Content-Type: application/http")
            line("Content-Transfer-Encoding: binary")
            if let id { line("Content-ID: " + id) }
            line()
            line("HTTP/1.1 \(answer.status) \(Self.reasonPhrase(answer.status))")
            for field in answer.headers where field.name != .contentLength {
                line("\(field.name.rawName): \(field.value)")
            }
            line("Content-Length: \(answer.body.count)")
            line()
            out += answer.body
            line()
        }
        for (number, result) in results.enumerated() {
            line("--" + boundary)
            if result.stoppedAt != nil {
                // Refused as a unit: the error alone (a changeset of one answers it as its own).
                part(result.answers[0], id: result.members.count == 1 ? result.members[0].id : nil)
                continue
            }
            let inner = "changesetresponse_\(number)_" + boundary
            line("Content-Type: multipart/mixed; boundary=" + inner)
            line()
            for (member, answer) in zip(result.members, result.answers) {
                line("--" + inner)
                part(answer, id: member.id)
            }
            line("--" + inner + "--")
            line()
        }
        line("--" + boundary + "--")
        var headers = HTTPFields()
        headers[.contentType] = "multipart/mixed; boundary=" + boundary
        AnswerVersion(dialect).declare(in: &headers)
        headers[.contentLength] = String(out.count)
        return Response(status: .accepted, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: out)))
    }

    static func reasonPhrase(_ status: Int) -> String {
        let phrases = [
            200: "OK", 201: "Created", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
            405: "Method Not Allowed", 409: "Conflict", 412: "Precondition Failed", 413: "Content Too Large",
            428: "Precondition Required", 500: "Internal Server Error", 501: "Not Implemented",
        ]
        return phrases[status] ?? "Status"
    }

    func jsonAnswer(_ results: [BatchResult]) -> Response {
        var entries: [String] = []
        for result in results {
            let pairs: [(BatchMember?, ServiceAnswer)] =
                result.stoppedAt.map { [(result.members[$0], result.answers[0])] }
                ?? Array(zip(result.members.map(Optional.some), result.answers))
            for (member, answer) in pairs {
                var entry = #"{"id":"# + (member?.id.map(Self.jsonString) ?? "null")
                entry += #","status":\#(answer.status),"headers":{"#
                entry += answer.headers.filter { $0.name != .contentLength }
                    .map { Self.jsonString($0.name.canonicalName) + ":" + Self.jsonString($0.value) }
                    .joined(separator: ",")
                entry += "}"
                if !answer.body.isEmpty, let text = String(bytes: answer.body, encoding: .utf8) {
                    entry += #","body":"# + text
                }
                entries.append(entry + "}")
            }
        }
        let body = Array((#"{"responses":["# + entries.joined(separator: ",") + "]}").utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json;charset=utf-8"
        AnswerVersion.version4.declare(in: &headers)
        headers[.contentLength] = String(body.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
