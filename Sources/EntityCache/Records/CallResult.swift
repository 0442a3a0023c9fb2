import Foundation
import ODataCore

/// What a call of a function answered, when it is not a list (issue 36): one entity (cached as any entity is, and
/// named here) or a value, as JSON.
public struct CallResult: Sendable, Hashable {
    /// The entity it answered with.
    public var entityKey: EntityKey?
    /// The value it answered with, as plain JSON (a number, a string in quotes, an object, an array, `null`).
    public var value: String?
    public var fetchedAt: Date

    public init(entityKey: EntityKey? = nil, value: String? = nil, fetchedAt: Date) {
        self.entityKey = entityKey
        self.value = value
        self.fetchedAt = fetchedAt
    }
}
