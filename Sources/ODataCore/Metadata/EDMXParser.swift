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
