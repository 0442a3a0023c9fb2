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
    /// The to-one navigation to a draft's administrative data (who edits it, since when), as SAP names it.
    public static let administration = "DraftAdministrativeData"
}

/// Who edits a draft and since when, from its `DraftAdministrativeData` (SAP's names).
public struct DraftAdministration: Sendable, Hashable {
    /// Who has it open (`InProcessByUser`), else who made it (`CreatedByUser`); nil when neither is said.
    public var user: String?
    /// Whether someone has it open (`InProcessByUser` given): else its lock has run out, and ``user`` made it.
    public var isOpen: Bool
    /// Whether ``user`` is the one signed in: `DraftIsProcessedByMe` for who has it open, `DraftIsCreatedByMe` for
    /// who made it.
    public var isMine: Bool
    /// Since when (`CreationDateTime`), and its last change (`LastChangeDateTime`).
    public var since: ODataValue?
    public var lastChange: ODataValue?

    /// What `values` (a `DraftAdministrativeData` entity's) say; nil when they say nothing of who or when.
    public init?(_ values: [ODataProperty]) {
        func value(_ name: String) -> ODataValue? {
            values.first { $0.name == name }.flatMap { $0.value.isNull ? nil : $0.value }
        }
        func text(_ name: String) -> String? {
            guard case .string(let text)? = value(name), !text.isEmpty else { return nil }
            return text
        }
        let editor = text("InProcessByUser")
        isOpen = editor != nil
        user = editor ?? text("CreatedByUser")
        let mine = isOpen ? value("DraftIsProcessedByMe") : value("DraftIsCreatedByMe")
        isMine = mine == .bool(true)
        since = value("CreationDateTime")
        lastChange = value("LastChangeDateTime")
        guard user != nil || mine != nil || since != nil else { return nil }
    }
}

extension ServiceModel {
    /// The draft actions of `set`, when the service edits its entities through drafts.
    public func draftActions(ofSet set: String) -> DraftActions? {
        entitySet(named: set)?.draftActions
    }

    /// The navigation to a draft's administrative data of `set`'s entities, when the set is edited through drafts
    /// and its type has one (a to-one `DraftAdministrativeData`).
    public func draftAdministration(ofSet set: String) -> String? {
        guard draftActions(ofSet: set) != nil, let type = entityType(ofSet: set),
            let navigation = navigationProperties(of: type).first(where: { $0.name == DraftActions.administration }),
            resolveNavigation(navigation.name, fromSet: set)?.isCollection == false
        else { return nil }
        return navigation.name
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
    /// The key of the active entity whose draft is `key` (its `IsActiveEntity` true); nil when `key` names no draft.
    public static func activeKey(of key: EntityKey) -> EntityKey? {
        guard let index = key.values.firstIndex(where: { $0.name == DraftActions.activeKey }),
            key.values[index].value == .bool(false)
        else { return nil }
        var values = key.values
        values[index].value = .bool(true)
        return EntityKey(entitySet: key.entitySet, values: values)
    }
}

extension ServiceModel {
    /// The properties a draft-enabled service keeps for itself: which copy an entity is, and whether it has the
    /// other; none is a client's to set, and which copy it is says nothing on a list of active entities.
    static let draftProperties: [(name: String, hidden: Bool, label: String)] = [
        (DraftActions.activeKey, true, "Active"), ("HasActiveEntity", true, "Has an active copy"),
        ("HasDraftEntity", false, "Has a draft"),
    ]

    /// The names of ``draftProperties``: what says which copy an entity is.
    public static let draftPropertyNames = Set(draftProperties.map(\.name))

    /// Marks the draft properties of the types of sets edited through drafts (``draftProperties``) read-only, hides
    /// those that say nothing on a list, and names them where the service does not.
    mutating func settleDraftProperties() {
        let types = Set(containers.flatMap(\.entitySets).filter { $0.draftActions != nil }.map(\.entityType))
        for name in types {
            guard var type = entityTypes[name] else { continue }
            for (property, hidden, label) in Self.draftProperties {
                guard let index = type.properties.firstIndex(where: { $0.name == property }) else { continue }
                type.properties[index].isCreatable = false
                type.properties[index].isUpdatable = false
                if hidden { type.properties[index].isHidden = true }
                if type.properties[index].label == nil { type.properties[index].label = label }
            }
            entityTypes[name] = type
        }
    }
}
