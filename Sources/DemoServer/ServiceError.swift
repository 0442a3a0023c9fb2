/// A request the service refuses, with the HTTP status and OData error code it answers with.
///
/// Thrown anywhere below the routes; the responder turns it into
/// `{"error": {"code": …, "message": {"lang": "en", "value": …}}}` so that bad input never becomes a 500.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String

    public init(status: Int, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status) \(code): \(message)" }

    /// 400: a malformed URL or query option.
    static func badRequest(_ message: String) -> ServiceError {
        ServiceError(status: 400, code: "BadRequest", message: message)
    }

    /// 404: an unknown entity set, key, navigation or property.
    static func notFound(_ message: String) -> ServiceError {
        ServiceError(status: 404, code: "ResourceNotFound", message: message)
    }

    /// 405: a method other than GET/HEAD; the service is read-only.
    static func methodNotAllowed(_ method: String) -> ServiceError {
        ServiceError(
            status: 405, code: "MethodNotAllowed",
            message:
                "\(method) is not allowed here: this service reads with GET and changes one entity with MERGE, PATCH, PUT or DELETE."
        )
    }

    /// 501: a valid OData feature this service does not implement.
    static func notImplemented(_ message: String) -> ServiceError {
        ServiceError(status: 501, code: "NotImplemented", message: message)
    }
}
