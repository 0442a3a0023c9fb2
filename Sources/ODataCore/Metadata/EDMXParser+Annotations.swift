/// The annotations `$metadata` carries (and annotation documents add): the vocabulary terms the screens read —
/// `UI`, `Common`, `Capabilities`, `Core`, `Measures` — gathered per target and applied to the model's types,
/// properties and sets.
extension EDMXParser.Context {
    /// The `<Annotation>`s of an `<Annotations>` block; a block's `Qualifier` is each one's that names none
    /// (CSDL: it applies to every annotation inside), so a qualified block never stands in for the unqualified
    /// terms the screens read.
    static func annotations(of block: XMLNode) -> [XMLNode] {
        let annotations = block.children(named: "Annotation")
        guard let qualifier = block.attribute("Qualifier"), !qualifier.isEmpty else { return annotations }
        return annotations.map { annotation in
            guard annotation.attribute("Qualifier") == nil else { return annotation }
            var qualified = annotation
            qualified.attributes.append((key: "Qualifier", value: qualifier))
            return qualified
        }
    }

    /// What a browser keeps of a run of v4 annotations.
    struct Notes {
        var label: String?
        var description: String?
        var computed: Bool?
        var immutable: Bool?
        var insertable: Bool?
        var updatable: Bool?
        var deletable: Bool?
        /// `Capabilities.ChangeTracking`'s `Supported` (true when the record leaves it out).
        var tracksChanges: Bool?
        var keyAsSegment: Bool?
        /// `UI.HeaderInfo`'s `Title` and `Description` value paths.
        var title: [String] = []
        /// `UI.LineItem` and `UI.HeaderInfo`'s type names.
        var ui = UIAnnotations()
        /// `Common.Text`'s path, with its `UI.TextArrangement`.
        var text: (path: String, arrangement: TextArrangement?)?
        /// `Measures.ISOCurrency` or `Measures.Unit`.
        var unit: MeasureUnit?
        /// `UI.Hidden` (a static one, not a path).
        var hidden: Bool?
        /// `UI.Criticality` of a property.
        var criticality: Criticality?
        /// `Common.ValueList` and `Common.ValueListWithFixedValues` of a property.
        var valueList: ValueList?
        var fixedValues: Bool?
        /// `Common.ValueListReferences` of a property; `Common.ValueListMapping`s (aimed at another service's
        /// property), the unqualified first.
        var valueListReferences: [String]?
        var valueListMappings: [ValueList] = []
        /// `Common.FieldControl`'s static member: `ReadOnly`, `Mandatory`, `Hidden`, `Inapplicable`, `Optional`.
        var fieldControl: String?
        /// `Core.OperationAvailable` of an action or function: a constant, or a path of the bound entity.
        var operationAvailable: ServiceOperation.Availability?
        /// `Common.SideEffects` of an action (every qualifier's targets together), paths as written.
        var sideEffects: SideEffects?
        /// `Common.SideEffects` of an entity type, each qualifier's apart: what changes when its sources change.
        var fieldSideEffects: [SideEffects] = []
        /// `Capabilities.FilterRestrictions` / `SortRestrictions`: whether the set filters (sorts) at all, and the
        /// properties it does not filter (sort) by.
        var filterable: Bool?
        var nonFilterable: [String]?
        var sortable: Bool?
        var nonSortable: [String]?
        var ascendingOnly: [String]?
        var descendingOnly: [String]?
        var requiresFilter: Bool?
        var requiredFilter: [String]?
        /// `Capabilities.SearchRestrictions`' `Searchable`: the set takes `$search`.
        var searchable: Bool?
        /// `Capabilities.CountRestrictions`' `Countable`: the set's lists are counted.
        var countable: Bool?
        /// `Common.DraftRoot`'s actions.
        var draftActions: DraftActions?
        /// `Core.OptionalParameter`'s `DefaultValue` (of an operation's parameter).
        var defaultValue: String?
    }

    /// A `Bool` expression, as an attribute or an element (absent: true, as the vocabularies default it).
    func bool(_ node: XMLNode) -> Bool {
        (node.attribute("Bool") ?? node.child(named: "Bool").map { $0.text.filter { !$0.isWhitespace } })
            != "false"
    }

    /// A `String` expression, as an attribute or an element.
    func string(_ node: XMLNode) -> String? {
        node.attribute("String") ?? node.child(named: "String")?.text
    }

    /// A record's `<PropertyValue Property="…">`.
    func value(_ record: XMLNode, _ property: String) -> XMLNode? {
        record.children(named: "PropertyValue").first { $0.attribute("Property") == property }
    }

    /// A `Common.SideEffectsType` record's targets: `TargetEntities` (navigation paths) and `TargetProperties`
    /// (property paths, or strings as the vocabulary later typed them), each at most
    /// ``SideEffects/maximumPaths`` of at most ``SideEffects/maximumSegments`` segments; others are passed over.
    func sideEffects(_ record: XMLNode) -> SideEffects {
        func paths(_ property: String, _ kinds: Set<String>) -> [String] {
            let items = value(record, property)?.child(named: "Collection")?.children ?? []
            var found: [String] = []
            for item in items where kinds.contains(item.name) {
                let path = String(item.text.filter { !$0.isWhitespace })
                guard path.count <= 512, path.split(separator: "/").count <= SideEffects.maximumSegments,
                    !found.contains(path)
                else { continue }
                found.append(path)
                if found.count == SideEffects.maximumPaths { break }
            }
            return found
        }
        var effects = SideEffects(
            targetEntities: paths("TargetEntities", ["NavigationPropertyPath"]),
            targetProperties: paths("TargetProperties", ["PropertyPath", "String"]))
        effects.sourceProperties = paths("SourceProperties", ["PropertyPath"])
        effects.sourceEntities = paths("SourceEntities", ["NavigationPropertyPath"])
        return effects
    }

    /// Reads `<Annotation Term="…">` elements (terms through their vocabulary's alias or namespace).
    func notes(_ annotations: [XMLNode]) -> Notes {
        var notes = Notes()
        /// `Property` of a restriction record: `<Record><PropertyValue Property="Insertable" Bool="false"/>`.
        func restriction(_ node: XMLNode, _ property: String) -> Bool? {
            node.child(named: "Record").flatMap { value($0, property) }.map(bool)
        }
        /// The property paths of a restriction record's collection: `<PropertyValue Property="…"><Collection>
        /// <PropertyPath>name</PropertyPath>…`.
        func paths(_ node: XMLNode, _ property: String) -> [String]? {
            node.child(named: "Record").flatMap { value($0, property) }.map { value in
                (value.child(named: "Collection")?.children(named: "PropertyPath") ?? []).map {
                    String($0.text.filter { !$0.isWhitespace })
                }.filter { !$0.isEmpty }
            }
        }
        for annotation in annotations {
            guard let term = annotation.attribute("Term").map(qualify) else { continue }
            // A qualified annotation is a variant (another device, another role) of what the screens read,
            // except for the terms whose qualifier names one of several (field groups, charts, side effects,
            // a value-help service's mappings).
            if annotation.attribute("Qualifier") != nil, !Self.termsNamedByQualifier.contains(term) { continue }
            switch term {
            case "com.sap.vocabularies.Common.v1.Label": notes.label = string(annotation)
            case "Org.OData.Core.V1.OperationAvailable":
                if let path = annotation.attribute("Path") ?? annotation.child(named: "Path")?.text {
                    notes.operationAvailable = .path(String(path.filter { !$0.isWhitespace }))
                } else {
                    notes.operationAvailable = bool(annotation) ? .always : .never
                }
            case "com.sap.vocabularies.Common.v1.SideEffects":
                guard let record = annotation.child(named: "Record") else { continue }
                let effects = sideEffects(record)
                notes.sideEffects = notes.sideEffects.map { $0.merged(with: effects) } ?? effects
                if effects.hasSources, notes.fieldSideEffects.count < SideEffects.maximumPaths {
                    notes.fieldSideEffects.append(effects)
                }
            case "com.sap.vocabularies.Common.v1.Text":
                guard let path = annotation.attribute("Path") ?? annotation.child(named: "Path")?.text,
                    !path.isEmpty, !path.contains("/")
                else { continue }
                let arrangement = annotation.children(named: "Annotation").first {
                    $0.attribute("Term").map(qualify) == "com.sap.vocabularies.UI.v1.TextArrangement"
                }.flatMap { $0.attribute("EnumMember") ?? $0.child(named: "EnumMember")?.text }
                    .flatMap { $0.split(separator: "/").last }
                    .flatMap { TextArrangement(rawValue: String($0.filter { !$0.isWhitespace })) }
                notes.text = (path, arrangement)
            case "com.sap.vocabularies.UI.v1.Hidden" where annotation.attribute("Path") == nil:
                notes.hidden = bool(annotation)
            case "com.sap.vocabularies.UI.v1.Criticality":
                notes.criticality = Criticality(annotation: annotation)
            case "com.sap.vocabularies.Common.v1.ValueList":
                notes.valueList = ValueList(annotation: annotation, qualify: qualify)
            case "com.sap.vocabularies.Common.v1.ValueListWithFixedValues":
                notes.fixedValues = bool(annotation)
            case "com.sap.vocabularies.Common.v1.ValueListReferences":
                notes.valueListReferences = ValueListReference.references(in: annotation)
            case "com.sap.vocabularies.Common.v1.ValueListMapping":
                guard let mapping = ValueList(annotation: annotation, qualify: qualify),
                    notes.valueListMappings.count < ValueListReference.maximumReferences
                else { continue }
                if annotation.attribute("Qualifier") == nil {
                    notes.valueListMappings.insert(mapping, at: 0)
                } else {
                    notes.valueListMappings.append(mapping)
                }
            case "com.sap.vocabularies.Common.v1.FieldControl":
                // (a path says it per entity; only a fixed member says it for all)
                let member = annotation.attribute("EnumMember") ?? annotation.child(named: "EnumMember")?.text
                notes.fieldControl = member?.split(separator: "/").last.map {
                    String($0.filter { !$0.isWhitespace })
                }
            case "Org.OData.Measures.V1.ISOCurrency", "Org.OData.Measures.V1.Unit":
                let currency = term.hasSuffix("ISOCurrency")
                if let path = annotation.attribute("Path") ?? annotation.child(named: "Path")?.text, !path.isEmpty {
                    notes.unit = currency ? .currency(path: path) : .unit(path: path)
                } else if let code = string(annotation), !code.isEmpty {
                    notes.unit = currency ? .currencyCode(code) : .unitCode(code)
                }
            case "Org.OData.Core.V1.Description": notes.description = string(annotation)
            case "Org.OData.Core.V1.Computed": notes.computed = bool(annotation)
            case "Org.OData.Core.V1.Immutable": notes.immutable = bool(annotation)
            case "Org.OData.Capabilities.V1.FilterRestrictions":
                notes.filterable = restriction(annotation, "Filterable")
                notes.nonFilterable = paths(annotation, "NonFilterableProperties")
                notes.requiresFilter = restriction(annotation, "RequiresFilter")
                notes.requiredFilter = paths(annotation, "RequiredProperties")
            case "Org.OData.Core.V1.OptionalParameter":
                notes.defaultValue = annotation.child(named: "Record").flatMap { value($0, "DefaultValue") }
                    .flatMap(string)
            case "com.sap.vocabularies.Common.v1.DraftRoot":
                // <Record><PropertyValue Property="ActivationAction" String="NS.draftActivate"/>…
                guard let record = annotation.child(named: "Record") else { continue }
                func action(_ name: String) -> String? {
                    value(record, name).flatMap(string).map { qualify(String($0.filter { !$0.isWhitespace })) }
                        .flatMap { $0.isEmpty || $0.count > 256 ? nil : $0 }
                }
                guard let activation = action("ActivationAction") else { continue }
                notes.draftActions = DraftActions(
                    activation: activation, edit: action("EditAction"),
                    preparation: action("PreparationAction"), new: action("NewAction"))
            case "Org.OData.Capabilities.V1.SearchRestrictions":
                notes.searchable = restriction(annotation, "Searchable") ?? true
            case "Org.OData.Capabilities.V1.CountRestrictions":
                notes.countable = restriction(annotation, "Countable") ?? true
            case "Org.OData.Capabilities.V1.SortRestrictions":
                notes.sortable = restriction(annotation, "Sortable")
                notes.nonSortable = paths(annotation, "NonSortableProperties")
                notes.ascendingOnly = paths(annotation, "AscendingOnlyProperties")
                notes.descendingOnly = paths(annotation, "DescendingOnlyProperties")
            case "Org.OData.Capabilities.V1.InsertRestrictions":
                notes.insertable = restriction(annotation, "Insertable")
            case "Org.OData.Capabilities.V1.UpdateRestrictions":
                notes.updatable = restriction(annotation, "Updatable")
            case "Org.OData.Capabilities.V1.DeleteRestrictions":
                notes.deletable = restriction(annotation, "Deletable")
            case "Org.OData.Capabilities.V1.KeyAsSegmentSupported":
                notes.keyAsSegment = bool(annotation)
            case "Org.OData.Capabilities.V1.ChangeTracking":
                notes.tracksChanges = restriction(annotation, "Supported") ?? true
            case "com.sap.vocabularies.UI.v1.LineItem":
                notes.ui.lineItem = lineItem(annotation)
                notes.ui.lineItemActions = actionFields(annotation)
            case "com.sap.vocabularies.UI.v1.SelectionFields":
                let fields = (annotation.child(named: "Collection")?.children(named: "PropertyPath") ?? [])
                    .prefix(64).map { String($0.text.filter { !$0.isWhitespace }) }
                    .filter { !$0.isEmpty && !$0.contains("/") }
                notes.ui.selectionFields = fields
            case "com.sap.vocabularies.UI.v1.Identification":
                notes.ui.identification = lineItem(annotation)
                notes.ui.identificationActions = actionFields(annotation)
            case "com.sap.vocabularies.UI.v1.FieldGroup":
                guard let record = annotation.child(named: "Record"), let data = value(record, "Data") else {
                    continue
                }
                notes.ui.fieldGroups[annotation.attribute("Qualifier") ?? ""] = FieldGroup(
                    label: value(record, "Label").flatMap(string), data: lineItem(data))
            case "com.sap.vocabularies.UI.v1.PresentationVariant":
                // <Record><PropertyValue Property="SortOrder"><Collection><Record>
                //   <PropertyValue Property="Property" PropertyPath="…"/><PropertyValue Property="Descending" Bool="true"/>
                guard let record = annotation.child(named: "Record"), let order = value(record, "SortOrder") else {
                    continue
                }
                let items = (order.child(named: "Collection")?.children(named: "Record") ?? []).prefix(16)
                    .compactMap { item -> (String, Bool)? in
                        guard let property = value(item, "Property"),
                            let path = property.attribute("PropertyPath")
                                ?? property.child(named: "PropertyPath")?.text ?? property.attribute("Path"),
                            !path.isEmpty, !path.contains("/"), !path.contains(" ")
                        else { return nil }
                        return (path, value(item, "Descending").map(bool) ?? false)
                    }
                if !items.isEmpty { notes.ui.sortOrder = items.map { (property: $0.0, descending: $0.1) } }
            case "com.sap.vocabularies.UI.v1.Facets":
                notes.ui.facets = facets(annotation, depth: 0)
            case "com.sap.vocabularies.UI.v1.Chart":
                guard let record = annotation.child(named: "Record"), (notes.ui.charts?.count ?? 0) < 16 else {
                    continue
                }
                /// The property paths of a collection value (`<Collection><PropertyPath>…`), of this type's own.
                func chartPaths(_ name: String) -> [String] {
                    (value(record, name)?.child(named: "Collection")?.children(named: "PropertyPath") ?? [])
                        .prefix(16).map { String($0.text.filter { !$0.isWhitespace }) }
                        .filter { !$0.isEmpty && !$0.contains("/") }
                }
                let type = value(record, "ChartType").flatMap {
                    $0.attribute("EnumMember") ?? $0.child(named: "EnumMember")?.text
                }?.split(separator: "/").last.map { String($0.filter { !$0.isWhitespace }) }
                let chart = ChartDefinition(
                    title: value(record, "Title").flatMap(string), chartType: type,
                    dimensions: chartPaths("Dimensions"), measures: chartPaths("Measures"))
                if !chart.dimensions.isEmpty, !chart.measures.isEmpty {
                    notes.ui.charts = (notes.ui.charts ?? []) + [chart]
                }
            case "com.sap.vocabularies.UI.v1.HeaderInfo":
                if let record = annotation.child(named: "Record") {
                    notes.ui.typeName = value(record, "TypeName").flatMap(string)
                    notes.ui.typeNamePlural = value(record, "TypeNamePlural").flatMap(string)
                }
                // <Record><PropertyValue Property="Title"><Record><PropertyValue Property="Value" Path="…"/>
                let values = annotation.child(named: "Record")?.children(named: "PropertyValue") ?? []
                for part in ["Title", "Description"] {
                    guard let field = values.first(where: { $0.attribute("Property") == part }),
                        let value = field.child(named: "Record")?.children(named: "PropertyValue").first(where: {
                            $0.attribute("Property") == "Value"
                        }),
                        let path = value.attribute("Path") ?? value.child(named: "Path")?.text,
                        !path.contains("/")
                    else { continue }
                    notes.title.append(path)
                }
            default: continue
            }
        }
        return notes
    }
}
