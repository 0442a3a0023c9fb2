import Foundation

/// The entities behind a navigation, distinguishing *unknown* from *empty*.
public enum Related<Element: Sendable & Hashable>: Sendable, Hashable {
    /// Never fetched, or the server only sent `__deferred`: a screen shows "loading…".
    case unknown
    /// Fetched at `fetchedAt`; an empty array means the relation is really empty.
    case known([Element], fetchedAt: Date)

    /// When it was fetched, when known.
    public var fetchedAt: Date? {
        if case .known(_, let at) = self { return at }
        return nil
    }

    /// The elements when known, else nil.
    public var elements: [Element]? {
        if case .known(let elements, _) = self { return elements }
        return nil
    }
}

/// One row of a hop-through relation: the link entity and the entity it leads to.
///
/// For `related(Person(1), path: ["PersonCar", "Car"])` the link is a `PersonCar`
/// and the target its `Car`; the target is nil while that hop is unknown or null.
public struct HopRow: Sendable, Hashable {
    public var link: CachedEntity
    public var target: CachedEntity?

    public init(link: CachedEntity, target: CachedEntity?) {
        self.link = link
        self.target = target
    }
}
