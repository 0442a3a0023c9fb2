import EntityCache
import ODataCore

/// What an answer to one write means for it — or the lack of one. One pure function of the write, what came back
/// and what is known of the service; ``SyncEngine`` carries the verdict out (issue 34).
enum WriteVerdict: Equatable {
    /// Applied: the write leaves the outbox (a create takes the service's key).
    case settled
    /// A delete or unlink of what is already gone: what it wanted.
    case alreadyGone
    /// The service (or a proxy) refused the `MERGE` verb: tunnel it from now on and send this one again at once.
    case tunnelAndResend
    /// The entity changed on the service since it was read: fetch its copy and wait for the user.
    case conflict
    /// Made or not, nobody knows, and sending again could make it twice: wait for the user.
    case unknownOutcome
    /// Worth trying again after a wait (the service's `Retry-After` when it gave one).
    case retry(after: Double?)
    /// No answer came: the service is away; try again once it is back.
    case offline
    /// Refused for good: roll the change back and wait for the user.
    case refused

    /// What the service learned so far that changes a verdict.
    struct Known: Equatable {
        /// It applies a request id once (a create sent again is not made twice).
        var honoursRepeatability = false
        /// Updates already go tunnelled through `POST`.
        var tunnelsMerge = false
        /// It speaks OData v4 (updates are `PATCH`, never tunnelled).
        var version4 = false
    }

    /// The verdict on an answer with `status` to a write of `kind`.
    static func of(_ kind: OutboxEntry.Kind, status: Int, retryAfter: Double? = nil, known: Known) -> WriteVerdict {
        switch status {
        case 200..<300:
            return .settled
        case 404 where kind == .delete || kind == .unlink:
            return .alreadyGone
        case 405 where kind == .update && !known.tunnelsMerge && !known.version4,
            501 where kind == .update && !known.tunnelsMerge && !known.version4:
            return .tunnelAndResend
        case 412:
            return .conflict
        case 502 where kind.runsOnce && !known.honoursRepeatability,
            504 where kind.runsOnce && !known.honoursRepeatability:
            // A gateway that got no answer from the service behind it.
            return .unknownOutcome
        case let status where isTransient(status):
            return .retry(after: retryAfter)
        default:
            return .refused
        }
    }

    /// Whether an answer says to try again later: a timeout, too many requests, a server error.
    static func isTransient(_ status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// The verdict when no answer came: `failure` as the transport threw it.
    static func of(_ kind: OutboxEntry.Kind, failure: ODataError, known: Known) -> WriteVerdict {
        if failure.kind == .refused { return .refused }
        // A create (an action) may have been made (run) without its answer reaching us, unless it never left.
        if kind.runsOnce, !known.honoursRepeatability, !failure.neverSent { return .unknownOutcome }
        return .offline
    }
}
