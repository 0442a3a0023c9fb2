import Foundation

extension ODataError {
    /// The error an HTTP response with a failure status stands for, read from its body:
    /// OData JSON (`message` as object or string), OData XML, or anything else.
    public static func fromResponse(status: Int, url: String?, contentType: String?, body: [UInt8]) -> ODataError {
        if let json = try? JSONReader().read(body), let error = json["error"] ?? json["odata.error"] {
            return fromErrorObject(error, status: status, url: url)
        }
        if let root = try? XMLReader.parse(body), root.name == "error" {
            let message = root.child(named: "message")?.text ?? ""
            return ODataError(
                kind: .service, message: message.isEmpty ? reason(for: status) : message, url: url, status: status,
                code: root.child(named: "code")?.text
            )
        }
        let type = (contentType ?? "").lowercased()
        var message = reason(for: status)
        if type.contains("html") {
            message += " (the body is an HTML page, not an OData error)"
        } else if !body.isEmpty {
            let text = String(decoding: body.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { message += ": " + text }
        }
        return ODataError(kind: .service, message: message, url: url, status: status)
    }

    /// Reads `{"code": …, "message": {"lang": …, "value": …}}` or `"message": "…"`.
    static func fromErrorObject(_ error: JSONValue, status: Int?, url: String?) -> ODataError {
        var code: String?
        var message: String?
        if case .string(let text)? = error["code"] { code = text }
        switch error["message"] {
        case .string(let text)?: message = text
        case .object(let object)?:
            if case .string(let text)? = object["value"] { message = text }
        default: break
        }
        if message == nil, case .string(let inner)? = error["innererror"]?["message"] { message = inner }
        return ODataError(
            kind: .service, message: message ?? (status.map(reason(for:)) ?? "an error without a message"),
            url: url, status: status, code: code
        )
    }

    /// A short English reason phrase for common statuses.
    static func reason(for status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized — check the credentials"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 412: "Precondition Failed"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "HTTP status \(status)"
        }
    }
}
