import GRDB
import ODataCore

/// The one definition of the demo service's data model.
///
/// Both the SQL tables (``ServiceSchema/createStatements``) and the EDMX `$metadata` document
/// (``ServiceSchema/edmx``) are produced from it, so they cannot drift apart. Every key is a
/// single `Edm.Int32` column stored as SQLite's `INTEGER PRIMARY KEY`; relations are foreign-key
/// columns on the dependent ("many") side that are not exposed as properties.
public struct ServiceSchema: Sendable {
    /// The EDM namespace, e.g. `edmexampleModel`.
    public var namespace: String
    /// The entity container's name.
    public var containerName: String
    public var entitySets: [EntitySetSchema]
    public var relations: [RelationSchema]
    /// The functions it offers (issue 36).
    public var functions: [ServiceFunction] = []
    /// Whether it offers ``MaintenanceCostFunction`` (a car's maintenance cost in a year: a value, issue 36).
    public var offersMaintenanceCost = false
    /// Whether it offers ``RecordServiceAction`` (record a car's standard service: an action, issue 36).
    public var offersRecordService = false
    /// Whether its v4 root offers ``WorkOrderSet``, the work orders edited through drafts (issue 36).
    public var offersWorkOrders = false

    /// The draft-enabled set, when it is offered.
    var workOrders: WorkOrderSet? { offersWorkOrders ? WorkOrderSet(namespace: namespace) : nil }

    public init(namespace: String, containerName: String, entitySets: [EntitySetSchema], relations: [RelationSchema]) {
        self.namespace = namespace
        self.containerName = containerName
        self.entitySets = entitySets
        self.relations = relations
    }

    /// The set called `name`.
    public func entitySet(_ name: String) -> EntitySetSchema? { entitySets.first { $0.name == name } }

    /// The navigation `name` leaving `set`, derived from the relations.
    public func navigation(_ name: String, from set: String) -> NavigationSchema? {
        navigations(from: set).first { $0.name == name }
    }

    /// All navigations leaving `set`, sorted by name (the order WCF Data Services writes them in).
    public func navigations(from set: String) -> [NavigationSchema] {
        var result: [NavigationSchema] = []
        for relation in relations {
            if relation.principal == set {
                result.append(
                    NavigationSchema(
                        name: relation.principalNavigation, source: set, target: relation.dependent,
                        isCollection: true, foreignKey: relation.foreignKey, relation: relation
                    ))
            }
            if relation.dependent == set {
                result.append(
                    NavigationSchema(
                        name: relation.dependentNavigation, source: set, target: relation.principal,
                        isCollection: false, foreignKey: relation.foreignKey, relation: relation
                    ))
            }
        }
        return result.sorted { $0.name < $1.name }
    }

    /// The relation whose principal contains `set`'s entities (v4), if any.
    public func containment(of set: String) -> RelationSchema? {
        relations.first { $0.isContainment && $0.dependent == set }
    }

    /// The v4 path of a contained entity's set, through its principal: `Car(3)/Options` for an option of car 3
    /// (`node` its row, whose foreign key names the car); nil for an entity of a set of its own.
    func containerPath(of node: EntityNode) -> String? {
        guard let relation = containment(of: node.set), let set = entitySet(node.set),
            let index = foreignKeys(of: set.name).firstIndex(of: relation.foreignKey),
            set.properties.count + index < node.values.count,
            let principal = Int64.fromDatabaseValue(node.values[set.properties.count + index])
        else { return nil }
        return "\(relation.principal)(\(principal))/\(relation.principalNavigation)"
    }

    /// Foreign-key columns stored on `set` (dependent side of its relations).
    public func foreignKeys(of set: String) -> [String] {
        relations.filter { $0.dependent == set }.map(\.foreignKey)
    }

    /// The SQL columns of `set` in select order: properties, then foreign keys.
    public func columns(of set: EntitySetSchema) -> [String] {
        set.properties.map(\.name) + foreignKeys(of: set.name)
    }
}

/// One entity set and its entity type (they share a name here, as in the seed).
public struct EntitySetSchema: Sendable {
    public var name: String
    /// The key property; also the SQLite `INTEGER PRIMARY KEY`.
    public var key: String
    public var properties: [PropertySchema]
    /// The property whose value is the weak ETag (`ConcurrencyMode="Fixed"`).
    public var concurrencyProperty: String
    /// Columns with a SQL index: fast `$orderby` and keyset paging; `a,b` indexes both together.
    public var indexed: [String]
    /// String columns with a substring index (SQLite FTS5, trigrams of the lower-cased text): `$filter`'s
    /// `substringof('abc', tolower(column))` (v4: `contains(tolower(column), 'abc')`) looks rows up instead of
    /// reading every row.
    public var searchable: [String]
    /// How its screens look, in the vocabularies the service publishes (nil: it says nothing).
    public var screen: ScreenSchema?

    public init(
        name: String, key: String, properties: [PropertySchema], concurrencyProperty: String, indexed: [String],
        searchable: [String] = [], screen: ScreenSchema? = nil
    ) {
        self.screen = screen
        self.name = name
        self.key = key
        self.properties = properties
        self.concurrencyProperty = concurrencyProperty
        self.indexed = indexed
        self.searchable = searchable
    }

    /// The FTS5 table of ``searchable``.
    var searchTable: String { name + "_search" }

    /// The property called `name`.
    public func property(_ name: String) -> PropertySchema? { properties.first { $0.name == name } }

    /// The column index of property `name` in ``ServiceSchema/columns(of:)`` order.
    public func columnIndex(_ name: String) -> Int? { properties.firstIndex { $0.name == name } }
}

/// One primitive property and how it is stored.
public struct PropertySchema: Sendable {
    public var name: String
    public var type: PropertyType
    public var maxLength: Int?

    public init(_ name: String, _ type: PropertyType, maxLength: Int? = nil) {
        self.name = name
        self.type = type
        self.maxLength = maxLength
    }
}

/// The Edm types the demo uses, with their SQLite storage.
public enum PropertyType: Sendable {
    /// `Edm.Int32`, stored as INTEGER.
    case int32
    /// `Edm.String`, stored as TEXT.
    case string
    /// `Edm.DateTime`, stored as INTEGER milliseconds since 1970 (UTC).
    case dateTime
    /// `Edm.Decimal` with scale 2, stored as INTEGER hundredths (cents).
    case decimalCents

    /// The EDM type name.
    public var edm: EdmPrimitiveType {
        switch self {
        case .int32: .int32
        case .string: .string
        case .dateTime: .dateTime
        case .decimalCents: .decimal
        }
    }

    /// The SQLite column type.
    var sqlType: String { self == .string ? "TEXT" : "INTEGER" }
}

/// A one-to-many relation: `dependent.foreignKey` references `principal`'s key.
public struct RelationSchema: Sendable {
    /// The association's name in EDMX, e.g. `FK_PersonCar_Person`.
    public var name: String
    public var principal: String
    public var dependent: String
    public var foreignKey: String
    /// The to-many navigation on the principal (`Person.PersonCar`).
    public var principalNavigation: String
    /// The to-one navigation on the dependent (`PersonCar.Person`).
    public var dependentNavigation: String
    /// The dependents live inside their principal (issue 37): v4 declares the navigation `ContainsTarget` and no
    /// entity set of them, so each is addressed through its principal (`Car(3)/Options(7)`). v2 has no containment:
    /// there they are a set of their own, as a v2 service publishes such rows.
    public var isContainment = false

    public init(
        name: String, principal: String, dependent: String, foreignKey: String,
        principalNavigation: String, dependentNavigation: String, isContainment: Bool = false
    ) {
        self.isContainment = isContainment
        self.name = name
        self.principal = principal
        self.dependent = dependent
        self.foreignKey = foreignKey
        self.principalNavigation = principalNavigation
        self.dependentNavigation = dependentNavigation
    }
}

/// A navigation property, resolved from a relation.
public struct NavigationSchema: Sendable {
    public var name: String
    public var source: String
    public var target: String
    /// To-many (principal → dependents) or to-one (dependent → principal).
    public var isCollection: Bool
    /// The foreign-key column on the dependent side.
    public var foreignKey: String
    public var relation: RelationSchema
}
