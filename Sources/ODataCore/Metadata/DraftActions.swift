/// How a set's entities are edited when the service keeps them in drafts (SAP RAP and CAP, issue 36): an entity is
/// not changed in place but copied into a draft (`EditAction`), the draft changed, checked (`PreparationAction`)
/// and made the active entity again (`ActivationAction`). `Common.DraftRoot` on the set names the actions; an
/// entity's key then holds `IsActiveEntity`, true for the active entity and false for its draft.
public struct DraftActions: Sendable, Hashable {
    /// Makes a draft the active entity (the one action `DraftRoot` requires).
    public var activation: String
    /// Makes a draft of an active entity.
    public var edit: String?
    /// Checks a draft before it is activated.
    public var preparation: String?
    /// Makes a new draft in the set (without one, a POST to the set makes it).
    public var new: String?

    public init(activation: String, edit: String? = nil, preparation: String? = nil, new: String? = nil) {
        self.activation = activation
        self.edit = edit
        self.preparation = preparation
        self.new = new
    }

    /// The key property that tells an active entity (true) from its draft (false).
    public static let activeKey = "IsActiveEntity"
}

extension ServiceModel {
    /// The draft actions of `set`, when the service edits its entities through drafts.
    public func draftActions(ofSet set: String) -> DraftActions? {
        entitySet(named: set)?.draftActions
    }

    /// The key of the draft of the active entity `key` (its `IsActiveEntity` false), when its set is edited through
    /// drafts and the key says which one it is; nil otherwise.
    public func draftKey(of key: EntityKey) -> EntityKey? {
        guard draftActions(ofSet: key.entitySet) != nil,
            let index = key.values.firstIndex(where: { $0.name == DraftActions.activeKey }),
            key.values[index].value == .bool(true)
        else { return nil }
        var values = key.values
        values[index].value = .bool(false)
        return EntityKey(entitySet: key.entitySet, values: values)
    }
}
