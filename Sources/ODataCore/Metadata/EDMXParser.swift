/// Reads a `$metadata` document (EDMX 1.0 with CSDL v1–v2 schemas, or EDMX 4.0/4.01 with CSDL v4) into a
/// ``ServiceModel``.
///
/// Vendor attributes other than `sap:label`, `sap:text`, `sap:creatable`, `sap:updatable` and `sap:deletable`, and
/// unknown elements, are ignored. Of v4's annotations (inline, or in `<Annotations Target="…">`) the model keeps
/// what a browser needs: `Common.Label` (else `Core.Description`) as a property's label, `Core.Computed` and
/// `Core.Immutable` as what a client may set, `Capabilities`' insert, update and delete restrictions of an
/// entity set, and a type's `UI.LineItem` and `UI.HeaderInfo` (``UIAnnotations``); an annotation document adds to
/// them with ``merge(annotations:into:)``. A v4 `TypeDefinition` reads as its underlying type and an `EnumType` as a string (its members'
/// names are what JSON carries). What
/// the model needs but is missing or malformed is an error naming the element
/// and its line.
public enum EDMXParser {
    public static func parse(_ bytes: some Collection<UInt8>) throws(MetadataError) -> ServiceModel {
        let (root, data) = try read(bytes)
        var context = Context(bytes: data)
        return try context.model(from: root)
    }

    /// The document's element tree (and its bytes, for the line of what a later error names).
    static func read(_ bytes: some Collection<UInt8>) throws(MetadataError) -> (XMLNode, [UInt8]) {
        let data = Array(bytes)
        do {
            return (try XMLReader.parse(data), data)
        } catch {
            throw MetadataError(line: error.line, reason: error.reason + " (column \(error.column))")
        }
    }

    public static func parse(_ text: String) throws(MetadataError) -> ServiceModel {
        try parse(Array(text.utf8))
    }

    /// `model` with what an annotation document (an EDMX document of `<Annotations Target="…">` blocks, as SAP
    /// Gateway publishes for a v2 service) says about it; it overrides what `model` had, term by term. Targets
    /// that name nothing in `model`, and terms a browser does not use, are passed over. A document that is not
    /// EDMX throws, naming the line.
    public static func merge(
        annotations bytes: some Collection<UInt8>, into model: ServiceModel
    ) throws(MetadataError)
        -> ServiceModel
    {
        let (root, data) = try read(bytes)
        var context = Context(bytes: data)
        var model = model
        try context.merge(annotationsFrom: root, into: &model)
        return model
    }

    struct Context {
        let bytes: [UInt8]
        /// Alias → namespace, across all schemas (and, in v4, the vocabularies a document references).
        var aliases: [String: String] = [:]
        /// v4 type definitions and enum types → the Edm type they read as.
        var typeReplacements: [String: String] = [:]
        /// v4 enum types by qualified name: a property of one keeps its members (issue 37).
        var enumTypes: [String: EnumType] = [:]

        func error(_ node: XMLNode, _ reason: String) -> MetadataError {
            MetadataError(line: XMLReader.line(of: node.offset, in: bytes), reason: reason)
        }

        func required(_ node: XMLNode, _ attribute: String) throws(MetadataError) -> String {
            guard let value = node.attribute(attribute), !value.isEmpty else {
                throw error(node, "<\(node.name)> has no \(attribute) attribute")
            }
            return value
        }

        /// Replaces a leading alias with its namespace: `Self.Person` → `NS.Person`.
        func qualify(_ name: String) -> String {
            if name.hasPrefix("Collection("), name.hasSuffix(")") {
                return "Collection(" + qualify(String(name.dropFirst(11).dropLast())) + ")"
            }
            guard let dot = name.lastIndex(of: ".") else { return name }
            let prefix = String(name[..<dot])
            if let namespace = aliases[prefix] { return namespace + name[dot...] }
            return name
        }

        /// An annotation target's head as the model keys it: `NS.Type`, or an operation with its signature,
        /// `NS.Action(NS.Type,Collection(NS.Other))`, every name in it qualified and no spaces.
        func qualifyTarget(_ head: String) -> String {
            guard let open = head.firstIndex(of: "("), head.hasSuffix(")") else { return qualify(head) }
            let signature = head[head.index(after: open)..<head.index(before: head.endIndex)]
            let types = signature.split(separator: ",", omittingEmptySubsequences: false).map {
                qualify(String($0.filter { !$0.isWhitespace }))
            }
            return qualify(String(head[..<open])) + "(" + types.joined(separator: ",") + ")"
        }

        mutating func model(from root: XMLNode) throws(MetadataError) -> ServiceModel {
            guard root.name == "Edmx" || root.name == "Schema" else {
                throw error(
                    root, "the root element is <\(root.name)>, not <edmx:Edmx>, so this is not a $metadata document")
            }
            let schemas: [XMLNode] =
                root.name == "Schema"
                ? [root] : root.children(named: "DataServices").flatMap { $0.children(named: "Schema") }
            guard !schemas.isEmpty else { throw error(root, "the document has no <Schema>") }
            var model = ServiceModel()
            model.dataServiceVersion = root.child(named: "DataServices")?.attribute("DataServiceVersion")
            model.edmxVersion = root.name == "Edmx" ? root.attribute("Version") : nil
            for include in root.children(named: "Reference").flatMap({ $0.children(named: "Include") }) {
                if let namespace = include.attribute("Namespace"), let alias = include.attribute("Alias") {
                    aliases[alias] = namespace
                }
            }
            for schema in schemas {
                let namespace = try required(schema, "Namespace")
                if let alias = schema.attribute("Alias") { aliases[alias] = namespace }
            }
            for schema in schemas {
                let namespace = try required(schema, "Namespace")
                for node in schema.children {
                    guard let name = node.attribute("Name") else { continue }
                    if node.name == "TypeDefinition", let underlying = node.attribute("UnderlyingType") {
                        typeReplacements[namespace + "." + name] = qualify(underlying)
                    } else if node.name == "EnumType" {
                        typeReplacements[namespace + "." + name] = "Edm.String"
                        enumTypes[namespace + "." + name] = EnumType(node: node, namespace: namespace)
                    }
                }
            }
            var external: [(target: String, notes: Notes)] = []
            var imports: [XMLNode] = []
            var declared: [(node: XMLNode, namespace: String)] = []
            for schema in schemas {
                let namespace = try required(schema, "Namespace")
                for node in schema.children {
                    switch node.name {
                    case "EntityType":
                        let type = try entityType(node, namespace: namespace)
                        model.entityTypes[type.qualifiedName] = type
                    case "ComplexType":
                        let type = ComplexType(
                            namespace: namespace, name: try required(node, "Name"),
                            properties: try node.children(named: "Property").map { (p) throws(MetadataError) in
                                try property(p)
                            }
                        )
                        model.complexTypes[type.qualifiedName] = type
                    case "Association":
                        let association = try self.association(node, namespace: namespace)
                        model.associations[association.qualifiedName] = association
                    case "EntityContainer":
                        model.containers.append(try container(node, namespace: namespace))
                        imports += node.children.filter { ["FunctionImport", "ActionImport"].contains($0.name) }
                    case "Action", "Function":
                        declared.append((node, namespace))
                    case "Annotations":
                        if let target = node.attribute("Target") {
                            external.append((target, notes(Self.annotations(of: node))))
                        }
                    default:
                        continue
                    }
                }
            }
            model.operations = operations(imports: imports, declared: declared, version4: model.isVersion4)
            for (target, notes) in external { apply(notes, to: target, in: &model) }
            model.indexEntitySets()
            model.settleDraftProperties()
            return model
        }

        /// Applies an annotation document's `<Annotations>` blocks, its aliases resolved.
        mutating func merge(annotationsFrom root: XMLNode, into model: inout ServiceModel) throws(MetadataError) {
            guard root.name == "Edmx" || root.name == "Schema" else {
                throw error(
                    root, "the root element is <\(root.name)>, not <edmx:Edmx>, so this is no annotation document")
            }
            let schemas: [XMLNode] =
                root.name == "Schema"
                ? [root] : root.children(named: "DataServices").flatMap { $0.children(named: "Schema") }
            for include in root.children(named: "Reference").flatMap({ $0.children(named: "Include") }) {
                if let namespace = include.attribute("Namespace"), let alias = include.attribute("Alias") {
                    aliases[alias] = namespace
                }
            }
            for schema in schemas {
                if let namespace = schema.attribute("Namespace"), let alias = schema.attribute("Alias") {
                    aliases[alias] = namespace
                }
            }
            for block in schemas.flatMap({ $0.children(named: "Annotations") }) {
                guard let target = block.attribute("Target") else { continue }
                apply(notes(Self.annotations(of: block)), to: target, in: &model)
            }
            model.settleDraftProperties()
        }

        /// Terms an annotation may carry more than once, told apart by their qualifiers.
        static let termsNamedByQualifier: Set<String> = [
            "com.sap.vocabularies.UI.v1.FieldGroup", "com.sap.vocabularies.UI.v1.Chart",
            "com.sap.vocabularies.Common.v1.SideEffects", "com.sap.vocabularies.Common.v1.ValueListMapping",
        ]

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

        /// The data fields of a `UI.LineItem` collection that show a value (`DataFieldForAction` and the like,
        /// and fields marked `UI.Hidden`, are left out), at most ``maxLineItemFields``.
        func lineItem(_ annotation: XMLNode) -> [DataField] {
            let records = annotation.child(named: "Collection")?.children(named: "Record") ?? []
            var fields: [DataField] = []
            for record in records.prefix(Self.maxLineItemFields) {
                if let type = record.attribute("Type").map(qualify), type.contains("DataFieldFor") { continue }
                guard
                    let value = record.children(named: "PropertyValue").first(where: {
                        $0.attribute("Property") == "Value"
                    }),
                    let path = value.attribute("Path") ?? value.child(named: "Path")?.text,
                    !path.isEmpty, !path.hasPrefix("/"), !path.contains("@")
                else { continue }
                let label = record.children(named: "PropertyValue").first { $0.attribute("Property") == "Label" }
                    .flatMap(string)
                var importance: DataField.Importance?
                var hidden = false
                for inner in record.children(named: "Annotation") {
                    switch inner.attribute("Term").map(qualify) {
                    case "com.sap.vocabularies.UI.v1.Importance":
                        let member = inner.attribute("EnumMember") ?? inner.child(named: "EnumMember")?.text ?? ""
                        importance = member.split(separator: "/").last.flatMap {
                            DataField.Importance(rawValue: String($0.filter { !$0.isWhitespace }))
                        }
                    case "com.sap.vocabularies.UI.v1.Hidden":
                        hidden = (inner.attribute("Bool") ?? "true") != "false" && inner.attribute("Path") == nil
                    default: continue
                    }
                }
                if hidden { continue }
                var field = DataField(path: path, label: label, importance: importance)
                let properties = record.children(named: "PropertyValue")
                field.criticality = properties.first { $0.attribute("Property") == "Criticality" }
                    .flatMap(Criticality.init(annotation:))
                let representation = properties.first { $0.attribute("Property") == "CriticalityRepresentation" }
                    .flatMap {
                        $0.attribute("EnumMember") ?? $0.child(named: "EnumMember")?.text
                    }
                field.marksCriticality = representation?.filter { !$0.isWhitespace }.hasSuffix("WithoutIcon") != true
                fields.append(field)
            }
            return fields
        }

        /// The facets of a `UI.Facets` collection (or of a collection facet's `Facets`): reference facets to a field
        /// group, the identification or a navigation's line item, and collection facets to a depth of
        /// ``maxFacetDepth``; facets to anything else are left out.
        func facets(_ node: XMLNode, depth: Int) -> [Facet] {
            var budget = Self.maxFacets
            return facets(node, depth: depth, budget: &budget)
        }

        /// (`budget`: how many facets may still be read, over every level: a document of thousands is cut.)
        func facets(_ node: XMLNode, depth: Int, budget: inout Int) -> [Facet] {
            guard depth < Self.maxFacetDepth else { return [] }
            var result: [Facet] = []
            for record in (node.child(named: "Collection")?.children(named: "Record") ?? []).prefix(64) {
                guard budget > 0 else { break }
                budget -= 1
                let values = record.children(named: "PropertyValue")
                let label = values.first { $0.attribute("Property") == "Label" }
                    .flatMap { $0.attribute("String") ?? $0.child(named: "String")?.text }
                if let nested = values.first(where: { $0.attribute("Property") == "Facets" }) {
                    let inner = facets(nested, depth: depth + 1, budget: &budget)
                    if !inner.isEmpty { result.append(Facet(label: label, target: .collection, facets: inner)) }
                    continue
                }
                guard
                    let target = values.first(where: { $0.attribute("Property") == "Target" }),
                    let path = target.attribute("AnnotationPath") ?? target.child(named: "AnnotationPath")?.text,
                    let resolved = facetTarget(path)
                else { continue }
                result.append(Facet(label: label, target: resolved))
            }
            return result
        }

        /// `@UI.FieldGroup#General`, `@com.sap.vocabularies.UI.v1.Identification`, `to_Item/@UI.LineItem`.
        func facetTarget(_ path: String) -> Facet.Target? {
            let parts = path.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { return nil }
            let navigation = parts[0].hasSuffix("/") ? String(parts[0].dropLast()) : parts[0]
            let termAndQualifier = parts[1].split(separator: "#", maxSplits: 1).map(String.init)
            let term = qualify(termAndQualifier.first ?? "")
            let qualifier = termAndQualifier.count > 1 ? termAndQualifier[1] : ""
            switch term {
            case "com.sap.vocabularies.UI.v1.FieldGroup" where navigation.isEmpty: return .fieldGroup(qualifier)
            case "com.sap.vocabularies.UI.v1.Identification" where navigation.isEmpty: return .identification
            case "com.sap.vocabularies.UI.v1.LineItem" where !navigation.isEmpty && !navigation.contains("/"):
                return .lineItem(navigation: navigation)
            default: return nil
            }
        }

        /// How deep collection facets nest before the rest is left out.
        static let maxFacetDepth = 4
        /// The most facets one `UI.Facets` gives a detail, at every level together.
        static let maxFacets = 128

        /// The most columns a line item gives a list (a document that declares thousands is cut, not obeyed).
        static let maxLineItemFields = 64

        /// An entity type as its type-level annotations describe it (a later source overrides, term by term).
        func annotated(_ type: EntityType, _ notes: Notes) -> EntityType {
            var type = type
            if !notes.title.isEmpty {
                type.titleProperties = notes.title.filter { name in type.properties.contains { $0.name == name } }
            }
            type.ui = type.ui.overridden(by: notes.ui)
            if !notes.fieldSideEffects.isEmpty { type.sideEffects = notes.fieldSideEffects }
            return type
        }

        /// A property as its annotations describe it.
        func annotated(_ property: Property, _ notes: Notes) -> Property {
            var property = property
            if let label = notes.label ?? notes.description { property.label = label }
            if let text = notes.text {
                property.textProperty = text.path
                if let arrangement = text.arrangement { property.textArrangement = arrangement }
            }
            if let unit = notes.unit { property.unit = unit }
            if let hidden = notes.hidden { property.isHidden = hidden }
            if let criticality = notes.criticality { property.criticality = criticality }
            if let valueList = notes.valueList { property.valueList = valueList }
            if let fixed = notes.fixedValues { property.hasFixedValues = fixed }
            if let references = notes.valueListReferences { property.valueListReferences = references }
            switch notes.fieldControl {
            case "ReadOnly"?:
                property.isCreatable = false
                property.isUpdatable = false
            case "Mandatory"?: property.isMandatory = true
            case "Hidden"?, "Inapplicable"?: property.isHidden = true
            default: break
            }
            if notes.computed == true {
                property.isCreatable = false
                property.isUpdatable = false
            }
            if notes.immutable == true { property.isUpdatable = false }
            return property
        }

        /// An entity set as its capabilities annotations describe it.
        func annotated(_ set: EntitySet, _ notes: Notes) -> EntitySet {
            var set = set
            if let insertable = notes.insertable { set.isCreatable = insertable }
            if let updatable = notes.updatable { set.isUpdatable = updatable }
            if let deletable = notes.deletable { set.isDeletable = deletable }
            if let tracks = notes.tracksChanges { set.tracksChanges = tracks }
            if let filterable = notes.filterable { set.isFilterable = filterable }
            if let names = notes.nonFilterable { set.nonFilterable = names }
            if let sortable = notes.sortable { set.isSortable = sortable }
            if let names = notes.nonSortable { set.nonSortable = names }
            if let names = notes.ascendingOnly { set.ascendingOnly = names }
            if let names = notes.descendingOnly { set.descendingOnly = names }
            if let requires = notes.requiresFilter { set.requiresFilter = requires }
            if let names = notes.requiredFilter { set.requiredFilterProperties = names }
            if let searchable = notes.searchable { set.isSearchable = searchable }
            if let countable = notes.countable { set.isCountable = countable }
            if let draft = notes.draftActions { set.draftActions = draft }
            return set
        }

        /// Applies `<Annotations Target="NS.Type/Property">` or `Target="NS.Container/Set"`.
        func apply(_ notes: Notes, to target: String, in model: inout ServiceModel) {
            // (a value-help service's mappings are aimed at another service's properties, which it does not declare)
            if !notes.valueListMappings.isEmpty, let slash = target.firstIndex(of: "/") {
                let aimedAt = qualifyTarget(String(target[..<slash])) + target[slash...]
                // (several blocks may aim at one property: each adds what the others do not have)
                let known = model.valueListMappings[aimedAt] ?? []
                let added = notes.valueListMappings.filter { !known.contains($0) }
                if known.count + added.count <= ValueListReference.maximumReferences,
                    known.isEmpty ? model.valueListMappings.count < ValueListReference.maximumTargets : true
                {
                    model.valueListMappings[aimedAt] = known + added
                }
            }
            if !model.operations.isEmpty, applyToOperation(notes, target: target, in: &model) { return }
            let parts = target.split(separator: "/", maxSplits: 1).map(String.init)
            if parts.count == 1, let type = model.entityTypes[qualify(parts[0])] {
                model.entityTypes[type.qualifiedName] = annotated(type, notes)
                return
            }
            if parts.count == 1, let keyAsSegment = notes.keyAsSegment {
                let owner = qualify(parts[0])
                for index in model.containers.indices
                where model.containers[index].name == owner || owner.hasSuffix("." + model.containers[index].name) {
                    model.containers[index].keyAsSegment = keyAsSegment
                }
                return
            }
            guard parts.count == 2 else { return }
            let owner = qualify(parts[0])
            if var type = model.entityTypes[owner],
                let index = type.properties.firstIndex(where: { $0.name == parts[1] })
            {
                type.properties[index] = annotated(type.properties[index], notes)
                model.entityTypes[owner] = type
            } else if var type = model.complexTypes[owner],
                let index = type.properties.firstIndex(where: { $0.name == parts[1] })
            {
                type.properties[index] = annotated(type.properties[index], notes)
                model.complexTypes[owner] = type
            } else if let index = model.containers.firstIndex(where: {
                $0.name == owner || owner.hasSuffix("." + $0.name)
            }), let setIndex = model.containers[index].entitySets.firstIndex(where: { $0.name == parts[1] }) {
                model.containers[index].entitySets[setIndex] = annotated(
                    model.containers[index].entitySets[setIndex], notes)
            }
        }

        func entityType(_ node: XMLNode, namespace: String) throws(MetadataError) -> EntityType {
            let name = try required(node, "Name")
            var key: [String] = []
            if let keyNode = node.child(named: "Key") {
                key = try keyNode.children(named: "PropertyRef").map { (ref) throws(MetadataError) in
                    try required(ref, "Name")
                }
            }
            var properties = try node.children(named: "Property").map { (p) throws(MetadataError) in try property(p) }
            // v2: `sap:unit` names a property; one whose `sap:semantics` is `currency-code` makes it a currency.
            for index in properties.indices {
                guard case .unit(let path)? = properties[index].unit,
                    properties.first(where: { $0.name == path })?.semantics == "currency-code"
                else { continue }
                properties[index].unit = .currency(path: path)
            }
            let navigations = try node.children(named: "NavigationProperty").map { (nav) throws(MetadataError) in
                if nav.attribute("Relationship") == nil, let type = nav.attribute("Type") {
                    return NavigationProperty(
                        name: try required(nav, "Name"), type: qualify(type), partner: nav.attribute("Partner"),
                        containsTarget: nav.attribute("ContainsTarget") == "true",
                        isNullable: nav.attribute("Nullable") != "false")
                }
                return NavigationProperty(
                    name: try required(nav, "Name"), relationship: qualify(try required(nav, "Relationship")),
                    fromRole: try required(nav, "FromRole"), toRole: try required(nav, "ToRole")
                )
            }
            for keyName in key
            where !properties.contains(where: { $0.name == keyName }) && node.attribute("BaseType") == nil {
                throw error(node, "the key of \(name) names \(keyName), which is not one of its properties")
            }
            var type = EntityType(
                namespace: namespace, name: name, key: key, properties: properties, navigationProperties: navigations,
                baseType: node.attribute("BaseType").map(qualify), isAbstract: node.attribute("Abstract") == "true",
                hasStream: node.attribute("HasStream") == "true"
            )
            type.isOpen = node.attribute("OpenType") == "true"
            let inline = node.children(named: "Annotation")
            return inline.isEmpty ? type : annotated(type, notes(inline))
        }

        /// A prefixed vendor attribute (`sap:label`, whatever the prefix is bound to), never an unprefixed one.
        func vendor(_ node: XMLNode, _ name: String) -> String? {
            node.attributes.first { XMLNode.isPrefixed($0.key, name) }?.value
        }

        /// A type name as the model reads it: qualified, a v4 type definition or enum type replaced.
        func resolvedType(_ name: String) -> String {
            let qualified = qualify(name)
            if qualified.hasPrefix("Collection("), qualified.hasSuffix(")") {
                return "Collection(" + resolvedType(String(qualified.dropFirst(11).dropLast())) + ")"
            }
            return typeReplacements[qualified] ?? qualified
        }

        func property(_ node: XMLNode) throws(MetadataError) -> Property {
            let declaredType = try required(node, "Type")
            let type = EdmTypeReference(parsing: resolvedType(declaredType))
            let maxLength = node.attribute("MaxLength").flatMap { Int($0) }
            var parsed = Property(
                name: try required(node, "Name"), type: type, isNullable: node.attribute("Nullable") != "false",
                maxLength: maxLength, isConcurrencyToken: node.attribute("ConcurrencyMode") == "Fixed",
                precision: node.attribute("Precision").flatMap { Int($0) },
                scale: node.attribute("Scale").flatMap { Int($0) },
                label: vendor(node, "label"), textProperty: vendor(node, "text"),
                isCreatable: vendor(node, "creatable") != "false", isUpdatable: vendor(node, "updatable") != "false"
            )
            // (a unit the property's type names is a currency when that property says so: see `entityType`)
            parsed.unit = vendor(node, "unit").flatMap { $0.isEmpty ? nil : MeasureUnit.unit(path: $0) }
            parsed.semantics = vendor(node, "semantics")
            parsed.isHidden = vendor(node, "visible") == "false"
            parsed.isFilterable = vendor(node, "filterable") != "false"
            parsed.isSortable = vendor(node, "sortable") != "false"
            parsed.isRequiredInFilter = vendor(node, "required-in-filter") == "true"
            parsed.hasFixedValues = vendor(node, "value-list") == "fixed-values"
            // (a type name looked up only where there are enums to find)
            if !enumTypes.isEmpty, !declaredType.hasPrefix("Edm.") {
                parsed.enumeration = enumTypes[qualify(declaredType)]
            }
            let inline = node.children(named: "Annotation")
            return inline.isEmpty ? parsed : annotated(parsed, notes(inline))
        }

        func association(_ node: XMLNode, namespace: String) throws(MetadataError) -> Association {
            let ends = try node.children(named: "End").map { (end) throws(MetadataError) in
                let text = try required(end, "Multiplicity")
                guard let multiplicity = Multiplicity(rawValue: text) else {
                    throw error(end, "unknown multiplicity '\(text)' (expected 1, 0..1 or *)")
                }
                return Association.End(
                    role: try required(end, "Role"), type: qualify(try required(end, "Type")),
                    multiplicity: multiplicity)
            }
            guard ends.count == 2 else {
                throw error(node, "association \(node.attribute("Name") ?? "?") has \(ends.count) ends, not 2")
            }
            var constraint: Association.ReferentialConstraint?
            if let node = node.child(named: "ReferentialConstraint"),
                let principal = node.child(named: "Principal"), let dependent = node.child(named: "Dependent")
            {
                constraint = Association.ReferentialConstraint(
                    principalRole: try required(principal, "Role"),
                    principalProperties: principal.children(named: "PropertyRef").compactMap { $0.attribute("Name") },
                    dependentRole: try required(dependent, "Role"),
                    dependentProperties: dependent.children(named: "PropertyRef").compactMap { $0.attribute("Name") }
                )
            }
            return Association(
                namespace: namespace, name: try required(node, "Name"), ends: ends, referentialConstraint: constraint)
        }

        /// The `NavigationPropertyBinding`s of a set or singleton: navigation path → target set.
        func bindings(of node: XMLNode) -> [String: String] {
            var bindings: [String: String] = [:]
            for binding in node.children(named: "NavigationPropertyBinding") {
                // `Target` is a set of this container, or `Container/Set` / `NS.Container/Set` of another.
                guard let path = binding.attribute("Path"), let target = binding.attribute("Target") else {
                    continue
                }
                bindings[path] = target.split(separator: "/").last.map(String.init) ?? target
            }
            return bindings
        }

        func container(_ node: XMLNode, namespace: String) throws(MetadataError) -> EntityContainer {
            let sets = try node.children(named: "EntitySet").map { (set) throws(MetadataError) in
                let bindings = bindings(of: set)
                var parsed = EntitySet(
                    name: try required(set, "Name"), entityType: qualify(try required(set, "EntityType")),
                    isCreatable: vendor(set, "creatable") != "false", isUpdatable: vendor(set, "updatable") != "false",
                    isDeletable: vendor(set, "deletable") != "false", navigationBindings: bindings,
                    tracksChanges: vendor(set, "change-tracking") == "true")
                parsed.requiresFilter = vendor(set, "requires-filter") == "true"
                parsed.isSearchable = vendor(set, "searchable").map { $0 == "true" }
                parsed.isCountable = vendor(set, "countable") != "false"
                let inline = set.children(named: "Annotation")
                return inline.isEmpty ? parsed : annotated(parsed, notes(inline))
            }
            let associationSets = try node.children(named: "AssociationSet").map { (set) throws(MetadataError) in
                AssociationSet(
                    name: try required(set, "Name"), association: qualify(try required(set, "Association")),
                    ends: try set.children(named: "End").map { (end) throws(MetadataError) in
                        AssociationSet.End(role: try required(end, "Role"), entitySet: try required(end, "EntitySet"))
                    }
                )
            }
            // (a singleton without a name or a type is passed over: it never makes `$metadata` unusable)
            let singletons = node.children(named: "Singleton").compactMap { singleton -> Singleton? in
                // (its name is its entity's key in the cache: only a plain name, never one like `Car(1)`)
                guard let name = singleton.attribute("Name"), KeyPredicate.isIdentifier(name),
                    let type = singleton.attribute("Type")
                else { return nil }
                return Singleton(name: name, entityType: qualify(type), navigationBindings: bindings(of: singleton))
            }
            var container = EntityContainer(
                name: try required(node, "Name"), isDefault: node.attribute("IsDefaultEntityContainer") == "true",
                entitySets: sets, associationSets: associationSets, singletons: singletons
            )
            let inline = node.children(named: "Annotation")
            if !inline.isEmpty { container.keyAsSegment = notes(inline).keyAsSegment ?? false }
            return container
        }
    }
}

/// Why a `$metadata` document could not be read.
public struct MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public var description: String { "The service's $metadata is not usable (line \(line)): \(reason)." }
}
