/// How many entities an association end holds.
public enum Multiplicity: String, Sendable, Hashable {
    case one = "1"
    case zeroOrOne = "0..1"
    case many = "*"
}

/// An `EntityType`: key, properties and navigation properties.
public struct EntityType: Sendable, Hashable {
    public var namespace: String
    public var name: String
    /// Names of the key properties, in declared order (empty when inherited).
    public var key: [String]
    public var properties: [Property]
    public var navigationProperties: [NavigationProperty]
    /// Qualified name of the base type, if derived.
    public var baseType: String?
    public var isAbstract: Bool
    /// Whether the type is a media link entry (`m:HasStream`).
    public var hasStream: Bool
    /// Whether an entity of it may hold properties `$metadata` does not declare (v4 `OpenType`): its dynamic
    /// properties, shown as they come and never taken for declared ones.
    public var isOpen = false
    /// The properties the service itself names an entity by (v4 `UI.HeaderInfo`: its `Title`, then its
    /// `Description`), when it says.
    public var titleProperties: [String] = []
    /// What the `UI` vocabulary says about showing it (its list's columns and title).
    public var ui = UIAnnotations()
    /// `Common.SideEffects` annotated on it (issue 36): what the service changes in a draft when a field changes.
    public var sideEffects: [SideEffects] = []

    public var qualifiedName: String { namespace + "." + name }

    public init(
        namespace: String, name: String, key: [String] = [], properties: [Property] = [],
        navigationProperties: [NavigationProperty] = [], baseType: String? = nil, isAbstract: Bool = false,
        hasStream: Bool = false
    ) {
        self.namespace = namespace
        self.name = name
        self.key = key
        self.properties = properties
        self.navigationProperties = navigationProperties
        self.baseType = baseType
        self.isAbstract = isAbstract
        self.hasStream = hasStream
    }

    /// The declared property called `name` (this type only).
    public func property(named name: String) -> Property? { properties.first { $0.name == name } }
}

/// A `ComplexType`: a structured value without identity.
public struct ComplexType: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public var properties: [Property]

    public var qualifiedName: String { namespace + "." + name }

    public init(namespace: String, name: String, properties: [Property] = []) {
        self.namespace = namespace
        self.name = name
        self.properties = properties
    }
}

/// A structural property.
public struct Property: Sendable, Hashable {
    public var name: String
    public var type: EdmTypeReference
    public var isNullable: Bool
    /// `MaxLength`, when a number (`Max` reads as nil).
    public var maxLength: Int?
    /// `ConcurrencyMode="Fixed"`: the property takes part in the ETag.
    public var isConcurrencyToken: Bool
    public var precision: Int?
    public var scale: Int?
    /// `sap:label`: what a person calls the property.
    public var label: String?
    /// `sap:text` or `Common.Text`: the property that holds this one's readable text (`CustomerName` for
    /// `CustomerID`).
    public var textProperty: String?
    /// `UI.TextArrangement` of that text: how a code and its text are shown together.
    public var textArrangement: TextArrangement = .textFirst
    /// `sap:unit`, `Measures.ISOCurrency` or `Measures.Unit`: what an amount or quantity is counted in.
    public var unit: MeasureUnit?
    /// The v4 `EnumType` it holds a member (or, for flags, members) of; its values read as their names.
    public var enumeration: EnumType?
    /// `Common.ValueList`: where the values it may take are listed.
    public var valueList: ValueList?
    /// `Common.ValueListReferences`: the `$metadata` of the services that list the values it may take, as written
    /// (relative to this service's); see ``ValueListReference``.
    public var valueListReferences: [String] = []
    /// `Common.ValueListWithFixedValues` or v2 `sap:value-list="fixed-values"`: only the listed values are taken.
    public var hasFixedValues = false
    /// `UI.Criticality`: how good or bad its value is, wherever it is shown.
    public var criticality: Criticality?
    /// `sap:semantics` (`currency-code`, `unit-of-measure`, `email`, …).
    public var semantics: String?
    /// `UI.Hidden`, `Common.FieldControl` `Hidden` or `sap:visible="false"`: not a column of a list unless a line
    /// item names it.
    public var isHidden = false
    /// `Common.FieldControl` `Mandatory`: a form does not take it empty.
    public var isMandatory = false
    /// `sap:creatable` / `sap:updatable` (true unless a service says `false`): may a client set it.
    public var isCreatable: Bool
    public var isUpdatable: Bool
    /// `sap:filterable` / `sap:sortable` (true unless a service says `false`): may a `$filter` (`$orderby`) name it.
    public var isFilterable = true
    public var isSortable = true
    /// v2 `sap:required-in-filter`: a `$filter` of its set must name it.
    public var isRequiredInFilter = false

    public init(
        name: String, type: EdmTypeReference, isNullable: Bool = true, maxLength: Int? = nil,
        isConcurrencyToken: Bool = false, precision: Int? = nil, scale: Int? = nil, label: String? = nil,
        textProperty: String? = nil, isCreatable: Bool = true, isUpdatable: Bool = true
    ) {
        self.isCreatable = isCreatable
        self.isUpdatable = isUpdatable
        self.label = label
        self.textProperty = textProperty
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.isConcurrencyToken = isConcurrencyToken
        self.precision = precision
        self.scale = scale
    }
}

/// How a code and its readable text are shown together (`UI.TextArrangementType`).
public enum TextArrangement: String, Sendable, Hashable {
    /// "In Process (P)": the default.
    case textFirst = "TextFirst"
    /// "P (In Process)".
    case textLast = "TextLast"
    /// "In Process".
    case textOnly = "TextOnly"
    /// "P": the text is shown elsewhere.
    case textSeparate = "TextSeparate"
}

/// What an amount or a quantity is counted in: a currency or a unit of measure, held by another property of the
/// entity (`CurrencyCode`) or given once for all (`EUR`).
public enum MeasureUnit: Sendable, Hashable {
    case currency(path: String)
    case currencyCode(String)
    case unit(path: String)
    case unitCode(String)

    /// The property that holds it, when another property does.
    public var path: String? {
        switch self {
        case .currency(let path), .unit(let path): path
        case .currencyCode, .unitCode: nil
        }
    }

    /// Whether it is a currency (an amount's decimals follow it).
    public var isCurrency: Bool {
        switch self {
        case .currency, .currencyCode: true
        case .unit, .unitCode: false
        }
    }
}

/// A navigation property as declared (resolve it with ``ServiceModel/resolveNavigation(_:fromSet:)``).
///
/// CSDL v2 names an association and its roles; CSDL v4 names the target type itself (``type``, `Collection(…)`
/// for many) and leaves the association fields empty.
public struct NavigationProperty: Sendable, Hashable {
    public var name: String
    /// Qualified association name (v2; empty in v4).
    public var relationship: String
    public var fromRole: String
    public var toRole: String
    /// The qualified target type, `Collection(NS.Car)` for many (v4; nil in v2).
    public var type: String?
    /// The navigation back from the target (v4 `Partner`).
    public var partner: String?
    /// v4 `ContainsTarget`: the targets live inside this entity, not in an entity set of their own.
    public var containsTarget: Bool
    /// v4 `Nullable` of a navigation to one (`false`: there is always one).
    public var isNullable: Bool

    public init(name: String, relationship: String, fromRole: String, toRole: String) {
        self.name = name
        self.relationship = relationship
        self.fromRole = fromRole
        self.toRole = toRole
        self.type = nil
        self.partner = nil
        self.containsTarget = false
        self.isNullable = true
    }

    /// A CSDL v4 navigation property to `type`.
    public init(
        name: String, type: String, partner: String? = nil, containsTarget: Bool = false, isNullable: Bool = true
    ) {
        self.name = name
        self.relationship = ""
        self.fromRole = ""
        self.toRole = ""
        self.type = type
        self.partner = partner
        self.containsTarget = containsTarget
        self.isNullable = isNullable
    }
}

/// An `Association` between two entity types.
public struct Association: Sendable, Hashable {
    public struct End: Sendable, Hashable {
        public var role: String
        /// Qualified entity type name.
        public var type: String
        public var multiplicity: Multiplicity
    }

    /// `ReferentialConstraint`: which dependent properties refer to which principal ones.
    public struct ReferentialConstraint: Sendable, Hashable {
        public var principalRole: String
        public var principalProperties: [String]
        public var dependentRole: String
        public var dependentProperties: [String]
    }

    public var namespace: String
    public var name: String
    public var ends: [End]
    public var referentialConstraint: ReferentialConstraint?

    public var qualifiedName: String { namespace + "." + name }
}

/// An `EntityContainer`: the sets a service exposes.
public struct EntityContainer: Sendable, Hashable {
    public var name: String
    public var isDefault: Bool
    public var entitySets: [EntitySet]
    public var associationSets: [AssociationSet]
    /// v4 `Singleton`s: one entity each, read at the container's name for it (`/Dealership`).
    public var singletons: [Singleton] = []
    /// Whether its service addresses an entity by its key as a segment of its own (`Staff/3`, not `Staff(3)`):
    /// `Capabilities.KeyAsSegmentSupported`.
    public var keyAsSegment = false
}

/// A v4 `Singleton` (issue 37): one entity of a type, addressed by its name alone.
public struct Singleton: Sendable, Hashable {
    public var name: String
    /// Qualified entity type name.
    public var entityType: String
    /// Its `NavigationPropertyBinding`s: navigation path → the entity set its targets are in.
    public var navigationBindings: [String: String]

    public init(name: String, entityType: String, navigationBindings: [String: String] = [:]) {
        self.name = name
        self.entityType = entityType
        self.navigationBindings = navigationBindings
    }

    /// The singleton as a set of one entity, for what reads and navigates entity sets (its key names it alone:
    /// ``EntityKey/init(singleton:)``). The service creates and deletes no entity in it.
    public var asEntitySet: EntitySet {
        var set = EntitySet(
            name: name, entityType: entityType, isCreatable: false, isUpdatable: true, isDeletable: false,
            navigationBindings: navigationBindings, tracksChanges: false)
        set.isSingleton = true
        set.isFilterable = false
        set.isSortable = false
        return set
    }
}

/// An `EntitySet`: a collection of entities of one type.
public struct EntitySet: Sendable, Hashable {
    public var name: String
    /// Qualified entity type name.
    public var entityType: String
    /// `sap:creatable` / `sap:updatable` / `sap:deletable` (true unless a service says `false`).
    public var isCreatable: Bool
    public var isUpdatable: Bool
    public var isDeletable: Bool
    /// v4 `NavigationPropertyBinding`s: navigation path → the entity set its targets are in.
    public var navigationBindings: [String: String]
    /// The service tracks changes to it (`sap:change-tracking="true"`, `Capabilities.ChangeTracking`): a list read
    /// with `Prefer: odata.track-changes` comes with a delta link that says later what changed.
    public var tracksChanges: Bool
    /// `Capabilities.FilterRestrictions`: the set takes `$filter` at all, and the properties it takes it on not.
    public var isFilterable = true
    public var nonFilterable: [String] = []
    /// `Capabilities.SortRestrictions`: the set takes `$orderby` at all, and the properties it takes it on not.
    public var isSortable = true
    public var nonSortable: [String] = []
    /// `SortRestrictions`' `AscendingOnlyProperties` and `DescendingOnlyProperties`.
    public var ascendingOnly: [String] = []
    public var descendingOnly: [String] = []
    /// `FilterRestrictions`' `RequiresFilter` (v2 `sap:requires-filter`): the set is not read without a `$filter`;
    /// and its `RequiredProperties`, which that filter must name.
    public var requiresFilter = false
    public var requiredFilterProperties: [String] = []
    /// `Capabilities.SearchRestrictions`' `Searchable` (v2 `sap:searchable`): the set answers a free-text search
    /// (v4 `$search`, SAP's v2 `search`); nil when the service does not say (most that say nothing do not).
    public var isSearchable: Bool?
    /// `Capabilities.CountRestrictions`' `Countable` (v2 `sap:countable`): false when the service counts none of the
    /// set's lists (neither `$count=true` / `$inlinecount` nor the `/$count` segment), so neither is asked for.
    public var isCountable = true
    /// `Common.DraftRoot`: the service edits the set's entities through drafts, with these actions.
    public var draftActions: DraftActions?
    /// Where the set's entities live when they are contained in others (v4 `ContainsTarget`); nil for a set of the
    /// container.
    public var containment: Containment?
    /// A singleton's one entity (``Singleton/asEntitySet``), not a set of the container.
    public var isSingleton = false

    public init(
        name: String, entityType: String, isCreatable: Bool = true, isUpdatable: Bool = true, isDeletable: Bool = true,
        navigationBindings: [String: String] = [:], tracksChanges: Bool = false
    ) {
        self.tracksChanges = tracksChanges
        self.name = name
        self.entityType = entityType
        self.isCreatable = isCreatable
        self.isUpdatable = isUpdatable
        self.isDeletable = isDeletable
        self.navigationBindings = navigationBindings
    }
}

/// Where contained entities live (v4 `ContainsTarget`, issue 37): inside an entity of `parent`, reached by its
/// `navigation`. They have no entity set of their own: the set named `Person/Trips` stands for them in the model, and
/// the trips of one person are named by the path to them, `Person(1)/Trips` (their keys `Person(1)/Trips(2)`, the
/// canonical URL of each, as the cache keeps it).
public struct Containment: Sendable, Hashable {
    /// The set (itself maybe contained) whose entities hold these: `Person`.
    public var parent: String
    /// The navigation that holds them: `Trips`.
    public var navigation: String
    /// Whether an entity holds many (`Collection(…)`) or one.
    public var isCollection: Bool

    /// How deep contained sets are made (a type containing itself would go on for ever).
    public static let deepest = 4
    /// How many contained sets a model makes at most (a hostile document's many are cut there).
    public static let mostSets = 2_000

    /// `Person/Trips` for `Person(1)/Trips` or `Person('a/b')/Trips`: the path with its keys left out.
    public static func template(of name: String) -> String {
        guard name.unicodeScalars.contains("(") else { return name }
        return ResourcePath.splitSegments(Substring(name)).map { segment in
            segment.unicodeScalars.firstIndex(of: "(").map { String(Substring(segment.unicodeScalars[..<$0])) }
                ?? String(segment)
        }.joined(separator: "/")
    }
}

/// An `AssociationSet`: which entity set each end of an association lives in.
public struct AssociationSet: Sendable, Hashable {
    public struct End: Sendable, Hashable {
        public var role: String
        public var entitySet: String
    }

    public var name: String
    /// Qualified association name.
    public var association: String
    public var ends: [End]
}
