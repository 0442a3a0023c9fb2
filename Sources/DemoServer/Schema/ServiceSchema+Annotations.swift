/// How the demo service describes its own screens, in the vocabularies any OData client reads (issue 33): each
/// type's `UI.HeaderInfo` (its names, the properties that name one), `UI.LineItem` (a list's columns and their
/// labels), `Common.Label` of each property, `Measures.ISOCurrency` of an amount, and `Common.ValueList` of a car's make. The same `<Annotations>` blocks
/// go inline into both `$metadata` documents and, on their own, into the v2 root's annotation document
/// (``ServiceSchema/annotationDocument``), as SAP Gateway publishes a v2 service's.
public struct ScreenSchema: Sendable {
    /// `UI.HeaderInfo`'s `TypeName` and `TypeNamePlural`.
    public var typeName: String
    public var typeNamePlural: String
    /// The properties that name one (`Title`, then `Description`).
    public var title: String
    public var description: String?
    /// `UI.LineItem`: property and label, in order.
    public var lineItem: [(property: String, label: String)]
    /// `Common.Label` by property.
    public var labels: [String: String]
    /// `Measures.ISOCurrency` by property: the currency every amount of it is in.
    public var currencies: [String: String] = [:]
    /// `Common.ValueList` by property: the set that lists its values, the property of that set it takes, and the
    /// list's label. (Not `ValueListWithFixedValues`: the service takes any value, so it does not say it would
    /// not.)
    public var valueLists: [String: (collection: String, property: String, label: String)] = [:]
    /// `UI.PresentationVariant`'s `SortOrder`: a list's default order.
    public var sortOrder: [(property: String, descending: Bool)] = []

    public init(
        typeName: String, typeNamePlural: String, title: String, description: String? = nil,
        lineItem: [(property: String, label: String)], labels: [String: String], currencies: [String: String] = [:],
        valueLists: [String: (collection: String, property: String, label: String)] = [:],
        sortOrder: [(property: String, descending: Bool)] = []
    ) {
        self.valueLists = valueLists
        self.sortOrder = sortOrder
        self.typeName = typeName
        self.typeNamePlural = typeNamePlural
        self.title = title
        self.description = description
        self.lineItem = lineItem
        self.labels = labels
        self.currencies = currencies
    }
}

extension ServiceSchema {
    /// The vocabularies the annotations use, as `edmx:Reference`s (the aliases the blocks write terms with).
    static let vocabularyReferences = [
        (
            "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml", "Org.OData.Core.V1",
            "Core"
        ),
        (
            "https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Measures.V1.xml",
            "Org.OData.Measures.V1", "Measures"
        ),
        (
            "https://sap.github.io/odata-vocabularies/vocabularies/Common.xml", "com.sap.vocabularies.Common.v1",
            "Common"
        ),
        ("https://sap.github.io/odata-vocabularies/vocabularies/UI.xml", "com.sap.vocabularies.UI.v1", "UI"),
    ]

    /// `<edmx:Reference>` elements for ``vocabularyReferences`` (and, for an annotation document, the service).
    /// `declaringNamespace`: in a v2 document, each element declares the v4 EDMX namespace it belongs to (as SAP
    /// Gateway writes them), the document's own `edmx` prefix being v2's.
    func references(service: String? = nil, declaringNamespace: Bool = false) -> String {
        let declaration = declaringNamespace ? " xmlns:edmx=\"http://docs.oasis-open.org/odata/ns/edmx\"" : ""
        var xml = ""
        for (uri, namespace, alias) in Self.vocabularyReferences {
            xml += "<edmx:Reference\(declaration) Uri=\"\(uri)\">"
            xml += "<edmx:Include Namespace=\"\(namespace)\" Alias=\"\(alias)\"/>"
            xml += "</edmx:Reference>\n"
        }
        if let service {
            xml += "<edmx:Reference Uri=\"\(Self.escaped(service))\"><edmx:Include Namespace=\"\(namespace)\"/>"
            xml += "</edmx:Reference>\n"
        }
        return xml
    }

    /// One `<Annotations Target="NS.Type">` block per type the service describes, and one per labelled property.
    /// `xmlns`: the CSDL v4 namespace, for a block inside a v2 schema.
    func annotationBlocks(xmlns: Bool) -> String {
        let namespaceAttribute = xmlns ? " xmlns=\"http://docs.oasis-open.org/odata/ns/edm\"" : ""
        var xml = ""
        for set in entitySets {
            guard let screen = set.screen else { continue }
            let type = "\(namespace).\(set.name)"
            xml += "<Annotations Target=\"\(type)\"\(namespaceAttribute)>\n"
            xml += "<Annotation Term=\"UI.HeaderInfo\"><Record Type=\"UI.HeaderInfoType\">"
            xml += "<PropertyValue Property=\"TypeName\" String=\"\(Self.escaped(screen.typeName))\"/>"
            xml += "<PropertyValue Property=\"TypeNamePlural\" String=\"\(Self.escaped(screen.typeNamePlural))\"/>"
            for (part, path) in [("Title", screen.title), ("Description", screen.description)] {
                guard let path else { continue }
                xml += "<PropertyValue Property=\"\(part)\"><Record Type=\"UI.DataField\">"
                xml += "<PropertyValue Property=\"Value\" Path=\"\(path)\"/></Record></PropertyValue>"
            }
            xml += "</Record></Annotation>\n<Annotation Term=\"UI.LineItem\"><Collection>"
            for field in screen.lineItem {
                xml += "<Record Type=\"UI.DataField\"><PropertyValue Property=\"Value\" Path=\"\(field.property)\"/>"
                xml += "<PropertyValue Property=\"Label\" String=\"\(Self.escaped(field.label))\"/></Record>"
            }
            xml += "</Collection></Annotation>\n"
            if !screen.sortOrder.isEmpty {
                xml += "<Annotation Term=\"UI.PresentationVariant\"><Record><PropertyValue Property=\"SortOrder\">"
                xml += "<Collection>"
                for item in screen.sortOrder {
                    xml += "<Record Type=\"Common.SortOrderType\">"
                    xml += "<PropertyValue Property=\"Property\" PropertyPath=\"\(item.property)\"/>"
                    if item.descending { xml += "<PropertyValue Property=\"Descending\" Bool=\"true\"/>" }
                    xml += "</Record>"
                }
                xml += "</Collection></PropertyValue><PropertyValue Property=\"Visualizations\"><Collection>"
                xml += "<AnnotationPath>@UI.LineItem</AnnotationPath></Collection></PropertyValue>"
                xml += "</Record></Annotation>\n"
            }
            xml += "</Annotations>\n"
            for property in set.properties {
                let label = screen.labels[property.name]
                let currency = screen.currencies[property.name]
                let valueList = screen.valueLists[property.name]
                guard label != nil || currency != nil || valueList != nil else { continue }
                xml += "<Annotations Target=\"\(type)/\(property.name)\"\(namespaceAttribute)>"
                if let label { xml += "<Annotation Term=\"Common.Label\" String=\"\(Self.escaped(label))\"/>" }
                if let currency {
                    xml += "<Annotation Term=\"Measures.ISOCurrency\" String=\"\(Self.escaped(currency))\"/>"
                }
                if let valueList {
                    xml += "<Annotation Term=\"Common.ValueList\"><Record Type=\"Common.ValueListType\">"
                    xml += "<PropertyValue Property=\"Label\" String=\"\(Self.escaped(valueList.label))\"/>"
                    xml += "<PropertyValue Property=\"CollectionPath\" String=\"\(valueList.collection)\"/>"
                    xml += "<PropertyValue Property=\"Parameters\"><Collection>"
                    xml += "<Record Type=\"Common.ValueListParameterInOut\">"
                    xml += "<PropertyValue Property=\"LocalDataProperty\" PropertyPath=\"\(property.name)\"/>"
                    xml += "<PropertyValue Property=\"ValueListProperty\" String=\"\(valueList.property)\"/>"
                    xml += "</Record></Collection></PropertyValue></Record></Annotation>"
                }
                xml += "</Annotations>\n"
            }
        }
        return xml
    }

    /// What the v2 root says of its operations in `<Annotations>` aimed at their imports (the v4 root says it inline).
    func version2OperationAnnotations(xmlns: Bool) -> String {
        guard offersRecordService else { return "" }
        return RecordServiceAction.version2Annotations(namespace: namespace, container: containerName, xmlns: xmlns)
    }

    /// The v2 root's annotation document (`GET …/CarDealer.svc/annotations`): the same blocks as `$metadata`
    /// carries, on their own, for a client that reads them as SAP Gateway publishes them. `metadataURL` is the
    /// service it describes.
    public func annotationDocument(metadataURL: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        \(references(service: metadataURL))<edmx:DataServices>
        <Schema Namespace="\(namespace).Annotations" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        \(annotationBlocks(xmlns: false))\(version2OperationAnnotations(xmlns: false))</Schema>
        </edmx:DataServices>
        </edmx:Edmx>

        """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
