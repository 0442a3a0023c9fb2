import CZlib
import HTTPTypes
import Hummingbird
import ODataCore

extension HTTPField.Name {
    static let dataServiceVersion = HTTPField.Name("DataServiceVersion")!
    static let odataVersion = HTTPField.Name("OData-Version")!
    static let maxDataServiceVersion = HTTPField.Name("MaxDataServiceVersion")!
    static let xHTTPMethod = HTTPField.Name("X-HTTP-Method")!
    static let repeatabilityRequestID = HTTPField.Name("Repeatability-Request-ID")!
    static let repeatabilityResult = HTTPField.Name("Repeatability-Result")!
    static let preferenceApplied = HTTPField.Name("Preference-Applied")!
    static let prefer = HTTPField.Name("Prefer")!
}

extension ODataResponder {
    /// A 200 response, or 304 when `If-None-Match` names the ETag. HEAD gets the headers only.
    func respond(
        _ request: Request, body: [UInt8], version: AnswerVersion, etag: String?,
        contentType: String = "application/json;charset=utf-8"
    ) -> Response {
        var headers = HTTPFields()
        version.declare(in: &headers)
        headers[.cacheControl] = "no-cache"
        if let etag { headers[.eTag] = etag }
        if let etag, let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        // A client that accepts gzip gets it for anything worth compressing (verbose JSON shrinks about 8×).
        headers[.vary] = "Accept-Encoding"
        var body = body
        if body.count >= Self.compressFrom, Self.acceptsGzip(request.headers[.acceptEncoding]),
            let compressed = Self.gzip(body)
        {
            body = compressed
            headers[.contentEncoding] = "gzip"
        }
        headers[.contentLength] = String(body.count)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// Bodies smaller than this go as they are (a gzip header and trailer cost 18 bytes).
    static let compressFrom = 512

    /// Whether an `Accept-Encoding` names gzip (or `*`) with a weight above zero.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "*" else { return false }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }

    /// `body` gzipped at zlib's default level, or nil if zlib failed.
    static func gzip(_ body: [UInt8]) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: czlib_bound(body.count))
        let written = body.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                czlib_gzip(input.baseAddress, input.count, out.baseAddress, out.count, 6)
            }
        }
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Whether an `If-None-Match` list (`*`, or ETags separated by commas) names `etag`.
    static func matches(_ header: String, _ etag: String) -> Bool {
        if header.trimmingCharacters(in: " ") == "*" { return true }
        let strip = { (tag: Substring) -> Substring in
            let trimmed = tag.trimmingCharacters(in: " ")
            return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : trimmed
        }
        // ETags may themselves contain commas only inside quotes; ours do not.
        return header.split(separator: ",").contains { strip($0) == strip(Substring(etag)) }
    }

    /// An OData error body with the error's status (v4: `message` a plain string).
    static func errorResponse(_ error: ServiceError, dialect: ODataDialect = .v2) -> Response {
        errorAnswer(error, dialect: dialect).response
    }

    /// The OData error body of `error`, with its status (and `Allow` for a 405).
    static func errorAnswer(_ error: ServiceError, dialect: ODataDialect = .v2) -> ServiceAnswer {
        var json = JSONWriter()
        json.beginObject()
        json.key("error")
        json.beginObject()
        json.key("code")
        json.string(error.code)
        json.key("message")
        if dialect == .v4 {
            json.string(error.message)
        } else {
            json.beginObject()
            json.key("lang")
            json.string("en-US")
            json.key("value")
            json.string(error.message)
            json.endObject()
        }
        json.endObject()
        json.endObject()
        var headers = HTTPFields()
        headers[.contentType] = "application/json;charset=utf-8"
        AnswerVersion(dialect).declare(in: &headers)
        if error.status == 405 { headers[.allow] = "GET, HEAD, MERGE, PATCH, PUT, DELETE" }
        return ServiceAnswer(status: error.status, headers: headers, body: json.bytes)
    }

    /// A weak ETag over a response body (FNV-1a, 64 bits): collections change when any member does.
    static func weakETag(of body: some Collection<UInt8>) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in body {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "W/\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// False only when the client says it reads at most v1 (`MaxDataServiceVersion: 1.0`).
    static func clientAcceptsVersion2(_ headers: HTTPFields) -> Bool {
        guard let value = headers[.maxDataServiceVersion] else { return true }
        let number = value.split(separator: ";").first.map { Double($0.trimmingCharacters(in: " ")) } ?? nil
        return (number ?? 2.0) >= 2.0
    }

    /// The answer to a write the service carried out, lost on its way (`--fail-rate`): the head promises a body
    /// that never comes, and the connection closes.
    static func lostAnswer() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json;charset=utf-8"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: 64) { _ in throw LostAnswer() })
    }

    struct LostAnswer: Error {}
}
