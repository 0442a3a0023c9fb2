import EntityCache
import ODataCore

/// Where a response goes in the cache: it decides how the normaliser files it and
/// what a 304 refreshes.
public enum FetchTarget: Sendable, Hashable {
    /// A page of a stored list starting at `offset`. `requestedTop` is the `$top`
    /// sent (nil when following a server `__next`), so a short page ends the list.
    case listPage(ListKey, entitySet: String, offset: Int, requestedTop: Int?)
    /// Rows near the end of a stored list, asked in the reverse order from the end: `$skip` of `skipFromEnd`, `$top`
    /// of the count wanted, the list's length with them (`plannedTotal` is the length the plan assumed, used only
    /// when the service sends none). A far page costs the service what a first page does instead of an `OFFSET`
    /// past every row before it. Only for an order that names every key property (a total order, so the reverse
    /// is exactly the list backwards).
    case listTail(ListKey, entitySet: String, skipFromEnd: Int, plannedTotal: Int)
    /// One entity, with the navigations its request expanded (first segments are
    /// the relations a 304 confirms).
    case entity(EntityKey, expanded: [String])
    /// All entities of `navigation` of `parent` (`Person(1)/PersonCar`).
    case relation(parent: EntityKey, navigation: String, entitySet: String?)
    /// What a call of a function answers when it is not a list (one entity of `entitySet`, or a value), filed under
    /// the call's key.
    case call(ListKey, entitySet: String?)
    /// The length of a stored list whose pages came without it, asked of the `/$count` segment (a plain number).
    case listCount(ListKey, entitySet: String)

    /// The entity set to assume for entities without `__metadata`.
    var entitySetHint: String? {
        switch self {
        case .listPage(_, let set, _, _), .listTail(_, let set, _, _), .listCount(_, let set): set
        case .entity(let key, _): key.entitySet
        case .relation(_, _, let set): set
        case .call(_, let set): set
        }
    }

    /// Whether this asks only for a list's length (``listCount(_:entitySet:)``).
    var isListCount: Bool {
        if case .listCount = self { return true }
        return false
    }

    /// The stored list this fetch fills, if any.
    var listKey: ListKey? {
        switch self {
        case .listPage(let key, _, _, _), .listTail(let key, _, _, _), .listCount(let key, _): key
        case .entity, .relation, .call: nil
        }
    }

    /// What a failure of this fetch leaves unknown, for screens to say so: the entity and the relations its
    /// request expanded, or the relation (`Person(1)`, `Person(1)/PersonCar`). Lists keep their own error.
    var errorSubjects: [String] {
        switch self {
        case .listPage, .listTail, .listCount: return []
        case .entity(let key, let expanded):
            let navigations = Set(expanded.compactMap { $0.split(separator: "/").first.map(String.init) })
            return [key.canonical] + navigations.sorted().map { key.canonical + "/" + $0 }
        case .relation(let parent, let navigation, _):
            return [parent.canonical + "/" + navigation]
        case .call(let key, _):
            return [key.canonical]
        }
    }
}
