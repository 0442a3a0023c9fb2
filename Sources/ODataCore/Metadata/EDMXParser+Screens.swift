/// What the gathered annotations make of the model: a `UI.LineItem`'s columns, `UI.Facets`' sections, and the
/// notes applied to their types, properties and sets.
extension EDMXParser.Context {
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
}
