import EntityCache
import ODataCore

/// Where a response goes in the cache: it decides how the normaliser files it and
/// what a 304 refreshes.
public enum FetchTarget: Sendable, Hashable {
    /// A page of a stored list starting at `offset`. `requestedTop` is the `$top`
    /// sent (nil when following a server `__next`), so a short page ends the list.
    case listPage(ListKey, entitySet: String, offset: Int, requestedTop: Int?)
    /// One entity, with the navigations its request expanded (first segments are
    /// the relations a 304 confirms).
    case entity(EntityKey, expanded: [String])
    /// All entities of `navigation` of `parent` (`Person(1)/PersonCar`).
    case relation(parent: EntityKey, navigation: String, entitySet: String?)

    /// The entity set to assume for entities without `__metadata`.
    var entitySetHint: String? {
        switch self {
        case .listPage(_, let set, _, _): set
        case .entity(let key, _): key.entitySet
        case .relation(_, _, let set): set
        }
    }
}
