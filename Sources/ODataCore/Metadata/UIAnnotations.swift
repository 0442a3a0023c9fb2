/// What a service's `UI` vocabulary says about how an entity type is shown (SAP's `com.sap.vocabularies.UI.v1`),
/// read from `$metadata` (inline, or `<Annotations Target="…">`) and from annotation documents
/// (``EDMXParser/merge(annotations:into:)``): the columns of its lists and the names of its screens.
///
/// Only what the service declares is kept; a browser falls back on `$metadata`'s properties where it says nothing.
public struct UIAnnotations: Sendable, Hashable {
    public static func == (lhs: UIAnnotations, rhs: UIAnnotations) -> Bool {
        lhs.lineItem == rhs.lineItem && lhs.typeName == rhs.typeName && lhs.typeNamePlural == rhs.typeNamePlural
            && lhs.facets == rhs.facets && lhs.fieldGroups == rhs.fieldGroups
            && lhs.identification == rhs.identification && lhs.lineItemActions == rhs.lineItemActions
            && lhs.identificationActions == rhs.identificationActions && lhs.selectionFields == rhs.selectionFields
            && lhs.sortOrder?.map(\.property) == rhs.sortOrder?.map(\.property)
            && lhs.sortOrder?.map(\.descending) == rhs.sortOrder?.map(\.descending) && lhs.charts == rhs.charts
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(lineItem)
        hasher.combine(typeNamePlural)
        hasher.combine(sortOrder?.map(\.property))
    }

    /// `UI.LineItem` (unqualified): a list's columns, in order.
    public var lineItem: [DataField]?
    /// `UI.HeaderInfo`'s `TypeName` ("Sales Order").
    public var typeName: String?
    /// `UI.HeaderInfo`'s `TypeNamePlural` ("Sales Orders"): a list's title.
    public var typeNamePlural: String?

    /// `UI.Facets`: a detail's sections, in order.
    public var facets: [Facet]?
    /// `UI.FieldGroup`s by qualifier (`""` for an unqualified one): what a facet shows.
    public var fieldGroups: [String: FieldGroup] = [:]
    /// `UI.Identification`: the fields that identify one of these.
    public var identification: [DataField]?
    /// `UI.PresentationVariant`'s `SortOrder`: a list's default order (`Descending` true sorts that one down).
    public var sortOrder: [(property: String, descending: Bool)]?
    /// The `UI.DataFieldForAction`s of `UI.LineItem` (operations offered on a row) and of `UI.Identification`
    /// (offered on one entity's screen), in order (issue 36).
    public var lineItemActions: [ActionField]?
    public var identificationActions: [ActionField]?
    /// `UI.SelectionFields`: the properties a list is filtered by (a Fiori filter bar's fields), in order.
    public var selectionFields: [String]?
    /// `UI.Chart`s (qualified or not), in the order declared: the charts a list of these offers.
    public var charts: [ChartDefinition]?

    public init(
        lineItem: [DataField]? = nil, typeName: String? = nil, typeNamePlural: String? = nil, facets: [Facet]? = nil,
        fieldGroups: [String: FieldGroup] = [:], identification: [DataField]? = nil,
        sortOrder: [(property: String, descending: Bool)]? = nil
    ) {
        self.sortOrder = sortOrder
        self.lineItem = lineItem
        self.typeName = typeName
        self.typeNamePlural = typeNamePlural
        self.facets = facets
        self.fieldGroups = fieldGroups
        self.identification = identification
    }

    /// Whether nothing was declared.
    public var isEmpty: Bool {
        lineItem == nil && typeName == nil && typeNamePlural == nil && facets == nil && fieldGroups.isEmpty
            && identification == nil && sortOrder == nil && lineItemActions == nil && identificationActions == nil
            && selectionFields == nil && charts == nil
    }

    /// These annotations with what `later` declares in their place, term by term (a later source overrides; a
    /// field group by its qualifier).
    public func overridden(by later: UIAnnotations) -> UIAnnotations {
        var overriding = UIAnnotations(
            lineItem: later.lineItem ?? lineItem, typeName: later.typeName ?? typeName,
            typeNamePlural: later.typeNamePlural ?? typeNamePlural, facets: later.facets ?? facets,
            fieldGroups: fieldGroups.merging(later.fieldGroups) { $1 },
            identification: later.identification ?? identification, sortOrder: later.sortOrder ?? sortOrder)
        // (the actions come with the term that holds them)
        overriding.lineItemActions = later.lineItem != nil ? later.lineItemActions : lineItemActions
        overriding.identificationActions =
            later.identification != nil ? later.identificationActions : identificationActions
        overriding.selectionFields = later.selectionFields ?? selectionFields
        overriding.charts = later.charts ?? charts
        return overriding
    }
}

/// A `UI.DataFieldForAction`: an operation the service offers at that place, by the name its `Action` gives
/// (`NS.Action`, `Container/Import`; ``ServiceModel/operation(named:)``).
public struct ActionField: Sendable, Hashable {
    public var action: String
    public var label: String?
    /// `Inline`: shown on the row itself rather than above the list.
    public var isInline: Bool
    /// `Determining`: one of the actions that end a task (a form's footer).
    public var isDetermining: Bool

    public init(action: String, label: String? = nil, isInline: Bool = false, isDetermining: Bool = false) {
        self.action = action
        self.label = label
        self.isInline = isInline
        self.isDetermining = isDetermining
    }
}

/// A `UI.ReferenceFacet` (what one section of a detail shows) or a `UI.CollectionFacet` (sections within one).
public struct Facet: Sendable, Hashable {
    public var label: String?
    public var target: Target
    /// A collection facet's own facets.
    public var facets: [Facet]

    public enum Target: Sendable, Hashable {
        /// `@UI.FieldGroup#Qualifier` (`""`: unqualified).
        case fieldGroup(String)
        /// `@UI.Identification`.
        case identification
        /// `Navigation/@UI.LineItem`: the list a navigation leads to, as a section one enters.
        case lineItem(navigation: String)
        /// A collection facet: its `facets`.
        case collection
    }

    public init(label: String?, target: Target, facets: [Facet] = []) {
        self.label = label
        self.target = target
        self.facets = facets
    }
}

/// A `UI.FieldGroup`: a titled run of fields.
public struct FieldGroup: Sendable, Hashable {
    public var label: String?
    public var data: [DataField]

    public init(label: String? = nil, data: [DataField]) {
        self.label = label
        self.data = data
    }
}

/// A `UI.DataField` (or one of its kinds that shows a value: `…WithUrl`, `…WithNavigationPath`,
/// `…WithIntentBasedNavigation`): the value at a path, with the label the service gives it.
public struct DataField: Sendable, Hashable {
    /// A property of the type (`TotalNetAmount`), or a path through to-one navigations (`Car/make`).
    public var path: String
    /// The column's own label; nil takes the property's.
    public var label: String?
    /// `UI.Importance`: what a narrow screen keeps first.
    public var importance: Importance?
    /// Its `Criticality`: how good or bad the value is (nil: the property's own `UI.Criticality`, if any).
    public var criticality: Criticality?
    /// Its `CriticalityRepresentation` is not `WithoutIcon`: the level is also marked beside the value.
    public var marksCriticality = true

    public enum Importance: String, Sendable, Hashable {
        case high = "High"
        case medium = "Medium"
        case low = "Low"
    }

    public init(path: String, label: String? = nil, importance: Importance? = nil) {
        self.path = path
        self.label = label
        self.importance = importance
    }
}

/// A `UI.Chart` (issue 33): how the service charts a list of these entities — its title, its type (`Line`,
/// `Column`, …), the properties along its axis (`Dimensions`) and those it measures (`Measures`).
public struct ChartDefinition: Sendable, Hashable {
    public var title: String?
    /// `ChartType`'s member name (`Line`, `Column`, `Bar`, `Area`, …).
    public var chartType: String?
    public var dimensions: [String]
    public var measures: [String]

    public init(title: String? = nil, chartType: String? = nil, dimensions: [String], measures: [String]) {
        self.title = title
        self.chartType = chartType
        self.dimensions = dimensions
        self.measures = measures
    }
}
