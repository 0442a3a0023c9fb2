/// The methods the service answers, as a request says them: its own, or the one a `POST` tunnels in `X-HTTP-Method`
/// (a verb a proxy would not let through). Read once, where a request comes in; anything else is a 405.
enum ServiceMethod: String, Sendable, CustomStringConvertible {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case merge = "MERGE"
    case delete = "DELETE"

    /// `method` (any case), or what a `POST` tunnels; a method the service does not answer is refused.
    init(_ method: String, tunnelled: String?) throws(ServiceError) {
        var name = method.uppercased()
        if name == "POST", let tunnelled { name = tunnelled.uppercased() }
        guard let known = ServiceMethod(rawValue: name) else { throw ServiceError.methodNotAllowed(name) }
        self = known
    }

    /// Whether it changes something (every method but `GET` and `HEAD`).
    var changes: Bool { self != .get && self != .head }

    var description: String { rawValue }
}
