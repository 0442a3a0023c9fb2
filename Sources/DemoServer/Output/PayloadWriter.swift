import GRDB
import ODataCore

/// Writes query results as OData verbose JSON (`{"d": …}`), v2 or v1, or as OData v4 JSON at the v4 root.
///
/// Entities carry `__metadata` (`uri`, `type`, `etag`), their properties in schema order, then their
/// navigations by name: expanded content, or `{"__deferred": {"uri": …}}`. v2 collections are
/// `{"results": […], "__count": "N", "__next": "…"}`; v1 collections (and all expanded lists in v1)
/// are plain arrays. v4 (minimal metadata): `@odata.context`, `@odata.etag`, properties, expanded navigations bare
/// (unexpanded ones left out); collections `{"@odata.count": N, "value": […], "@odata.nextLink": "…"}`; numbers as
/// JSON numbers, instants as ISO 8601.
struct PayloadWriter {
    let schema: ServiceSchema
    /// The service root as the client addressed it, ending in `/`.
    let serviceRoot: String
    /// v2 (`results` wrappers, `__count`, `__next`) or v1 (plain arrays).
    let isVersion2: Bool
    var dialect: ODataDialect = .v2

    init(schema: ServiceSchema, serviceRoot: String, isVersion2: Bool, dialect: ODataDialect = .v2) {
        self.schema = schema
        self.serviceRoot = serviceRoot
        self.isVersion2 = isVersion2
        self.dialect = dialect
    }

    /// The weak ETag of an entity: its concurrency property as a literal, e.g. `W/"datetime'2009-10-31T17:08:28.44'"`.
    func etag(_ node: EntityNode) -> String? {
        guard let set = schema.entitySet(node.set), let index = set.columnIndex(set.concurrencyProperty),
            let property = set.property(set.concurrencyProperty),
            let literal = ODataLiteral.format(property.type.odataValue(node.values[index]), as: property.type.edm)
        else { return nil }
        return "W/\"" + literal + "\""
    }

    func entityDocument(_ node: EntityNode, select: PathTree) -> [UInt8] {
        var json = JSONWriter()
        if dialect == .v4 {
            // (a contained entity's context names the path to it: `Car(3)/Options/$entity`)
            let context = schema.containerPath(of: node) ?? node.set
            writeVersion4(node, select: select, context: serviceRoot + "$metadata#" + context + "/$entity", into: &json)
            return json.bytes
        }
        json.beginObject()
        json.key("d")
        write(node, select: select, into: &json)
        json.endObject()
        return json.bytes
    }

    /// A collection: `deltaLink` (change tracking: where to ask what changed since) and `removed` (a delta answer's
    /// entities gone since its token: v4 `@removed` entries, v2 entries whose `__metadata` says `deleted`).
    func collectionDocument(
        _ nodes: [EntityNode], count: Int?, nextLink: String?, select: PathTree, deltaLink: String? = nil,
        removed: [String] = []
    ) -> [UInt8] {
        collectionDocumentAndRows(
            nodes, count: count, nextLink: nextLink, select: select, deltaLink: deltaLink, removed: removed
        ).body
    }

    /// ``collectionDocument(_:count:nextLink:select:deltaLink:removed:)``, and how many of its first bytes hold
    /// everything but the delta link (written last): what the page's ETag is taken from, since the link names the
    /// moment it was made and would make every page a new one.
    func collectionDocumentAndRows(
        _ nodes: [EntityNode], count: Int?, nextLink: String?, select: PathTree, deltaLink: String? = nil,
        removed: [String] = []
    ) -> (body: [UInt8], rows: Int) {
        var json = JSONWriter(capacity: 1024 * max(1, nodes.count))
        var rows: Int?
        if dialect == .v4 {
            json.beginObject()
            json.key("@odata.context")
            json.string(
                serviceRoot + "$metadata" + (nodes.first.map { "#" + (schema.containerPath(of: $0) ?? $0.set) } ?? ""))
            if let count {
                json.key("@odata.count")
                json.number(Int64(count))
            }
            json.key("value")
            json.beginArray()
            for node in nodes { writeVersion4(node, select: select, context: nil, into: &json) }
            for gone in removed {
                json.beginObject()
                json.key("@id")
                json.string(serviceRoot + gone)
                json.key("@removed")
                json.beginObject()
                json.key("reason")
                json.string("deleted")
                json.endObject()
                json.endObject()
            }
            json.endArray()
            if let nextLink {
                json.key("@odata.nextLink")
                json.string(nextLink)
            }
            if let deltaLink {
                rows = json.bytes.count
                json.key("@odata.deltaLink")
                json.string(deltaLink)
            }
            json.endObject()
            return (json.bytes, rows ?? json.bytes.count)
        }
        json.beginObject()
        json.key("d")
        if isVersion2 {
            json.beginObject()
            json.key("results")
        }
        json.beginArray()
        for node in nodes { write(node, select: select, into: &json) }
        for gone in removed {
            json.beginObject()
            json.key("__metadata")
            json.beginObject()
            json.key("uri")
            json.string(serviceRoot + gone)
            json.key("deleted")
            json.raw("true")
            json.endObject()
            json.endObject()
        }
        json.endArray()
        if isVersion2 {
            if let count {
                json.key("__count")
                json.string(String(count))
            }
            if let nextLink {
                json.key("__next")
                json.string(nextLink)
            }
            if let deltaLink {
                rows = json.bytes.count
                json.key("__delta")
                json.string(deltaLink)
            }
            json.endObject()
        }
        json.endObject()
        return (json.bytes, rows ?? json.bytes.count)
    }

    /// `{"d": {"name": value}}` (v4: `{"value": value}`), the answer to `Person(1)/firstName`.
    func propertyDocument(name: String, type: PropertyType, value: DatabaseValue) -> [UInt8] {
        var json = JSONWriter()
        if dialect == .v4 {
            json.beginObject()
            json.key("value")
            writeValue(type.odataValue(value), into: &json)
            json.endObject()
            return json.bytes
        }
        json.beginObject()
        json.key("d")
        json.beginObject()
        json.key(name)
        writeValue(type.odataValue(value), into: &json)
        json.endObject()
        json.endObject()
        return json.bytes
    }

    /// `{"d": {"EntitySets": [...]}}`; v4: `{"value": [{"name", "kind", "url"}]}`.
    func serviceDocument() -> [UInt8] {
        var json = JSONWriter()
        if dialect == .v4 {
            json.beginObject()
            json.key("@odata.context")
            json.string(serviceRoot + "$metadata")
            json.key("value")
            json.beginArray()
            for name in schema.entitySets.filter({ schema.containment(of: $0.name) == nil }).map(\.name)
                + (schema.workOrders.map { _ in [WorkOrderSet.name, WorkOrderSet.administration] } ?? [])
            {
                json.beginObject()
                json.key("name")
                json.string(name)
                json.key("kind")
                json.string("EntitySet")
                json.key("url")
                json.string(name)
                json.endObject()
            }
            json.endArray()
            json.endObject()
            return json.bytes
        }
        json.beginObject()
        json.key("d")
        json.beginObject()
        json.key("EntitySets")
        json.beginArray()
        for set in schema.entitySets { json.string(set.name) }
        json.endArray()
        json.endObject()
        json.endObject()
        return json.bytes
    }

    func write(_ node: EntityNode, select: PathTree, into json: inout JSONWriter) {
        guard let set = schema.entitySet(node.set) else {
            json.null()
            return
        }
        let selectsAll = select.isEmpty || select.all
        let uri = serviceRoot + set.name + "(" + String(node.key) + ")"
        json.beginObject()
        json.key("__metadata")
        json.beginObject()
        json.key("uri")
        json.string(uri)
        json.key("type")
        json.string(schema.namespace + "." + set.name)
        if let etag = etag(node) {  // whatever `$select` names: it is the entity's version
            json.key("etag")
            json.string(etag)
        }
        json.endObject()
        for (index, property) in set.properties.enumerated() where selectsAll || select.names.contains(property.name) {
            json.key(property.name)
            writeValue(property.type.odataValue(node.values[index]), into: &json)
        }
        for navigation in schema.navigations(from: set.name)
        where selectsAll || select.names.contains(navigation.name) {
            json.key(navigation.name)
            let childSelect = select.children[navigation.name] ?? PathTree()
            switch node.expanded[navigation.name] {
            case .one(let child?):
                write(child, select: childSelect, into: &json)
            case .one(nil):
                json.null()
            case .many(let children):
                if isVersion2 {
                    json.beginObject()
                    json.key("results")
                }
                json.beginArray()
                for child in children { write(child, select: childSelect, into: &json) }
                json.endArray()
                if isVersion2 { json.endObject() }
            case nil:
                json.beginObject()
                json.key("__deferred")
                json.beginObject()
                json.key("uri")
                json.string(uri + "/" + navigation.name)
                json.endObject()
                json.endObject()
            }
        }
        json.endObject()
    }

    /// One entity in v4's minimal-metadata form; `context` is given for a document's top-level entity.
    func writeVersion4(_ node: EntityNode, select: PathTree, context: String?, into json: inout JSONWriter) {
        guard let set = schema.entitySet(node.set) else {
            json.null()
            return
        }
        let selectsAll = select.isEmpty || select.all
        json.beginObject()
        if let context {
            json.key("@odata.context")
            json.string(context)
        }
        if let etag = etag(node) {  // whatever `$select` names: it is the entity's version
            json.key("@odata.etag")
            json.string(etag)
        }
        for (index, property) in set.properties.enumerated() where selectsAll || select.names.contains(property.name) {
            json.key(property.name)
            writeValue(property.type.odataValue(node.values[index]), into: &json)
        }
        for navigation in schema.navigations(from: set.name) {
            let childSelect = select.children[navigation.name] ?? PathTree()
            switch node.expanded[navigation.name] {
            case .one(let child?):
                json.key(navigation.name)
                writeVersion4(child, select: childSelect, context: nil, into: &json)
            case .one(nil):
                json.key(navigation.name)
                json.null()
            case .many(let children):
                json.key(navigation.name)
                json.beginArray()
                for child in children { writeVersion4(child, select: childSelect, context: nil, into: &json) }
                json.endArray()
            case nil:
                continue
            }
        }
        json.endObject()
    }

    func writeValue(_ value: ODataValue, into json: inout JSONWriter) {
        switch value {
        case .null: json.null()
        case .int(let number): json.number(number)
        case .string(let text): json.string(text)
        case .decimal(let text): if dialect == .v4 { json.raw(text) } else { json.string(text) }
        case .dateTime(let instant):
            json.string(dialect == .v4 ? instant.iso8601(withOffset: false) + "Z" : instant.wireDate)
        default: json.null()
        }
    }
}
