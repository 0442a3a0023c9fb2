import ODataCore

/// What went wrong last, kept as it came until the status line words it (``SyncEngine/publishStatus()``).
enum SyncProblem: Sendable, CustomStringConvertible {
    /// What the transport or the service said of a request (a refusal, no answer), or a notice about an answer (paging
    /// stopped, a link not followed).
    case request(ODataError)
    /// A change the cache could not record.
    case cache(any Error)
    /// What the engine itself says: the service unreachable with nothing more to name, a draft not made.
    case sentence(String)

    var description: String {
        switch self {
        case .request(let error): error.description
        case .cache(let error): String(describing: error)
        case .sentence(let sentence): sentence
        }
    }
}
