import Foundation

/// What is known about a stored list as a whole.
public struct ListState: Sendable, Hashable {
    /// `__count` from the last page that carried one.
    public var totalCount: Int?
    /// How many positions hold a row.
    public var fetchedCount: Int
    /// Whether every position up to the end has been fetched.
    public var isComplete: Bool
    /// Whether the server offered a `__next` link after the contiguous prefix.
    public var hasNextLink: Bool
    /// The position the next link continues at.
    public var nextPosition: Int?
    /// When a page of this list was last fetched or revalidated.
    public var fetchedAt: Date?
    /// The last fetch failure as a sentence, cleared by the next success.
    public var lastError: String?
    /// When it was recorded (nil for a file from before that was kept).
    public var lastErrorAt: Date?

    public init(
        totalCount: Int? = nil, fetchedCount: Int = 0, isComplete: Bool = false, hasNextLink: Bool = false,
        nextPosition: Int? = nil, fetchedAt: Date? = nil, lastError: String? = nil
    ) {
        self.totalCount = totalCount
        self.fetchedCount = fetchedCount
        self.isComplete = isComplete
        self.hasNextLink = hasNextLink
        self.nextPosition = nextPosition
        self.fetchedAt = fetchedAt
        self.lastError = lastError
    }

    /// The number of rows a screen should show: the total when known, else what is cached.
    public var displayCount: Int { max(totalCount ?? fetchedCount, fetchedCount) }
}

/// A window of a stored list: the rows at the requested positions, and the list's state.
public struct ListWindow: Sendable, Hashable {
    /// One position: the entity, or nil when that position is not fetched yet (a "loading…" row).
    public struct Row: Sendable, Hashable {
        public var position: Int
        public var entity: CachedEntity?

        public init(position: Int, entity: CachedEntity?) {
            self.position = position
            self.entity = entity
        }
    }

    public var range: Range<Int>
    /// One row per position of `range` that exists (clipped to the known count when complete).
    public var rows: [Row]
    /// Nil when the list has never been fetched.
    public var state: ListState?

    public init(range: Range<Int>, rows: [Row], state: ListState?) {
        self.range = range
        self.rows = rows
        self.state = state
    }
}

/// How much of a range of a stored list is cached (for the fetcher's freshness checks).
public struct ListRangeStatus: Sendable, Hashable {
    /// The first position of the range with no row, nil when all are cached.
    public var firstMissing: Int?
    /// The oldest fetch time among the cached prefix of the range.
    public var oldestFetch: Date?

    public init(firstMissing: Int?, oldestFetch: Date?) {
        self.firstMissing = firstMissing
        self.oldestFetch = oldestFetch
    }
}
