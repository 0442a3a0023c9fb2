/// Reads a `$metadata` document (EDMX 1.0 with CSDL v1–v2 schemas) into a ``ServiceModel``.
///
/// Vendor attributes other than `sap:label`, `sap:text`, `sap:creatable`, `sap:updatable` and `sap:deletable`, and
/// unknown elements, are ignored; what
/// the model needs but is missing or malformed is an error naming the element
/// and its line.
public enum EDMXParser {
    public static func parse(_ bytes: some Collection<UInt8>) throws(MetadataError) -> ServiceModel {
        let data = Array(bytes)
        let root: XMLNode
        do {
            root = try XMLReader.parse(data)
        } catch {
            throw MetadataError(line: error.line, reason: error.reason + " (column \(error.column))")
        }
        var context = Context(bytes: data)
        return try context.model(from: root)
    }

    public static func parse(_ text: String) throws(MetadataError) -> ServiceModel {
        try parse(Array(text.utf8))
    }

    private struct Context {
        let bytes: [UInt8]
        /// Alias → namespace, across all schemas.
        var aliases: [String: String] = [:]

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
            for schema in schemas {
                let namespace = try required(schema, "Namespace")
                if let alias = schema.attribute("Alias") { aliases[alias] = namespace }
            }
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
                    default:
                        continue
                    }
                }
            }
            return model
        }

        func entityType(_ node: XMLNode, namespace: String) throws(MetadataError) -> EntityType {
            let name = try required(node, "Name")
            var key: [String] = []
            if let keyNode = node.child(named: "Key") {
                key = try keyNode.children(named: "PropertyRef").map { (ref) throws(MetadataError) in
                    try required(ref, "Name")
                }
            }
            let properties = try node.children(named: "Property").map { (p) throws(MetadataError) in try property(p) }
            let navigations = try node.children(named: "NavigationProperty").map { (nav) throws(MetadataError) in
                NavigationProperty(
                    name: try required(nav, "Name"), relationship: qualify(try required(nav, "Relationship")),
                    fromRole: try required(nav, "FromRole"), toRole: try required(nav, "ToRole")
                )
            }
            for keyName in key
            where !properties.contains(where: { $0.name == keyName }) && node.attribute("BaseType") == nil {
                throw error(node, "the key of \(name) names \(keyName), which is not one of its properties")
            }
            return EntityType(
                namespace: namespace, name: name, key: key, properties: properties, navigationProperties: navigations,
                baseType: node.attribute("BaseType").map(qualify), isAbstract: node.attribute("Abstract") == "true",
                hasStream: node.attribute("HasStream") == "true"
            )
        }

        /// A prefixed vendor attribute (`sap:label`, whatever the prefix is bound to), never an unprefixed one.
        func vendor(_ node: XMLNode, _ name: String) -> String? {
            node.attributes.first { $0.key.hasSuffix(":" + name) }?.value
        }

        func property(_ node: XMLNode) throws(MetadataError) -> Property {
            let type = EdmTypeReference(parsing: qualify(try required(node, "Type")))
            let maxLength = node.attribute("MaxLength").flatMap { Int($0) }
            return Property(
                name: try required(node, "Name"), type: type, isNullable: node.attribute("Nullable") != "false",
                maxLength: maxLength, isConcurrencyToken: node.attribute("ConcurrencyMode") == "Fixed",
                precision: node.attribute("Precision").flatMap { Int($0) },
                scale: node.attribute("Scale").flatMap { Int($0) },
                label: vendor(node, "label"), textProperty: vendor(node, "text"),
                isCreatable: vendor(node, "creatable") != "false", isUpdatable: vendor(node, "updatable") != "false"
            )
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

        func container(_ node: XMLNode, namespace: String) throws(MetadataError) -> EntityContainer {
            let sets = try node.children(named: "EntitySet").map { (set) throws(MetadataError) in
                EntitySet(
                    name: try required(set, "Name"), entityType: qualify(try required(set, "EntityType")),
                    isCreatable: vendor(set, "creatable") != "false", isUpdatable: vendor(set, "updatable") != "false",
                    isDeletable: vendor(set, "deletable") != "false")
            }
            let associationSets = try node.children(named: "AssociationSet").map { (set) throws(MetadataError) in
                AssociationSet(
                    name: try required(set, "Name"), association: qualify(try required(set, "Association")),
                    ends: try set.children(named: "End").map { (end) throws(MetadataError) in
                        AssociationSet.End(role: try required(end, "Role"), entitySet: try required(end, "EntitySet"))
                    }
                )
            }
            return EntityContainer(
                name: try required(node, "Name"), isDefault: node.attribute("IsDefaultEntityContainer") == "true",
                entitySets: sets, associationSets: associationSets
            )
        }
    }
}

/// Why a `$metadata` document could not be read.
public struct MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String

    public var description: String { "The service's $metadata is not usable (line \(line)): \(reason)." }
}
