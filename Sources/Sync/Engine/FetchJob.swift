import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// How urgent a fetch is; lower raw value runs first.
public enum FetchPriority: Int, Sendable, Hashable, Comparable {
    /// Rows on screen now.
    case visible = 0
    /// The next page of a list whose window nears the end of what is cached.
    case nextPage = 1
    /// What the resting cursor predicts: the level after next for its row, the next screen of its neighbours.
    case prediction = 2

    public static func < (lhs: FetchPriority, rhs: FetchPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One queued or running GET. Identical URLs are one job (de-duplication).
struct FetchJob: Sendable {
    let url: String
    let target: FetchTarget
    var priority: FetchPriority
    /// Screens that want it; when the last one leaves and it is not pinned, it is cancelled.
    var owners: Set<ScreenID>
    /// Asked for directly (``SyncEngine/fetch(_:target:priority:)``): never cancelled by screens.
    var pinned: Bool
    /// FIFO order within a priority.
    var sequence: Int
    /// A `$select` response: merge, do not replace.
    let partial: Bool
    /// Entity sets the answer brings cut to a `$select` (the rest of it comes whole), each with the properties a
    /// whole entity of it carries.
    var partialSets: [String: Set<String>] = [:]

    var isWanted: Bool { pinned || !owners.isEmpty }
}

/// What became of one fetch, for callers that await it.
public struct FetchResult: Sendable, Hashable {
    public var outcome: RequestLogEntry.Outcome
    public var status: Int?
    /// Why it failed, as the transport or the service said it (worded where it is shown).
    public var error: ODataError?
}

/// What the runner reports back to the engine.
struct JobReport: Sendable {
    var outcome: RequestLogEntry.Outcome
    /// When the last attempt went out: what it brings was read on the service after this.
    var sentAt: Date?
    var status: Int?
    var bytes = 0
    var attempts = 0
    /// Seconds from the first attempt to the outcome (backoff included).
    var duration: Double = 0
    var error: ODataError?
    /// Fetched, but not all of it could be used (a next link that leads back): said on the status line and the list.
    var notice: ODataError?
    /// The last attempt's headers for the request log (``RequestLogEntry/headers``).
    var headers: String?
    /// Expansions the server left `__deferred`, to fetch by their own URL.
    var deferred: [Normaliser.DeferredNavigation] = []
    /// A page asked from a list's end brought no rows (``Normaliser/Summary/tailGaveNoRows``).
    var tailGaveNoRows = false
    /// What it brought stays not fresh: an action's effects marked it while the read was on its way, so the
    /// answer is older than what the service holds (``JobRunner/keptStale(_:)``). It is asked again, not held.
    var keptStale = false

    /// Whether the failure means the service could not be reached at all.
    var isUnreachable: Bool { outcome == .failed && error?.kind == .transport }
}
