/// Decodes OData v2 verbose JSON (`{"d": …}`) — the one parser every response goes through.
///
/// Accepts every shape real servers send (see `ODATA-V2.md`): single entities,
/// v1 plain arrays, v2 `results` with `__count` (string or number) and `__next`
/// (string or `{uri}`), expanded navigations in both shapes, `__deferred`, and
/// optional `__metadata`. Values are typed by the ``ServiceModel`` when the
/// type is known, best effort otherwise. Nothing here traps: bad input is an
/// ``ODataError`` of kind ``ODataError/Kind/malformedPayload``.
public struct VerboseJSONDecoder: Sendable {
    public let serviceRoot: String
    public let model: ServiceModel?
    let reader = JSONReader()

    public init(serviceRoot: String, model: ServiceModel? = nil) {
        self.serviceRoot = serviceRoot
        self.model = model
    }

    /// Decodes a response body. `entitySet` is the set the request addressed
    /// (e.g. `PersonCar` for `Person(1)/PersonCar`), used when entities carry no `__metadata`.
    public func decode(_ bytes: some Collection<UInt8>, entitySet: String? = nil, url: String? = nil) throws(ODataError) -> ODataPayload {
        let json: JSONValue
        do {
            json = try reader.read(bytes)
        } catch {
            throw ODataError(kind: .malformedPayload, message: error.description, url: url)
        }
        return try decode(json: json, entitySet: entitySet, url: url)
    }

    /// Decodes an already parsed document.
    public func decode(json: JSONValue, entitySet: String? = nil, url: String? = nil) throws(ODataError) -> ODataPayload {
        guard case .object(let root) = json else {
            throw malformed("the body is \(json.kindName), not an object with a \"d\" member", url)
        }
        if let error = root["error"] ?? root["odata.error"] {
            throw ODataError.fromErrorObject(error, status: nil, url: url)
        }
        guard let d = root["d"] else {
            throw malformed("the body has no \"d\" member (members: \(root.members.prefix(5).map(\.key).joined(separator: ", ")))", url)
        }
        let context = Context(decoder: self, url: url)
        switch d {
        case .array(let elements):
            return .collection(try context.collection(elements, count: nil, next: nil, set: entitySet, depth: 0))
        case .object(let object):
            if case .array(let elements)? = object["results"] {
                return .collection(try context.collection(elements, count: object["__count"], next: object["__next"], set: entitySet, depth: 0))
            }
            return .entity(try context.entity(object, set: entitySet, depth: 0))
        default:
            return .value(context.untypedValue(d, depth: 0))
        }
    }

    func malformed(_ message: String, _ url: String?) -> ODataError {
        ODataError(kind: .malformedPayload, message: message, url: url)
    }
}

extension VerboseJSONDecoder {
    /// Decoding state for one document.
    struct Context {
        let decoder: VerboseJSONDecoder
        let url: String?

        var model: ServiceModel? { decoder.model }

        func malformed(_ message: String) -> ODataError { decoder.malformed(message, url) }

        func collection(_ elements: [JSONValue], count: JSONValue?, next: JSONValue?, set: String?, depth: Int) throws(ODataError) -> ODataCollection {
            var entities: [ODataEntity] = []
            entities.reserveCapacity(elements.count)
            for (position, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    throw malformed("entry \(position) of a collection is \(element.kindName), not an entity object")
                }
                entities.append(try entity(object, set: set, depth: depth))
            }
            return ODataCollection(entities: entities, count: try self.count(count), nextLink: try nextLink(next))
        }

        func count(_ value: JSONValue?) throws(ODataError) -> Int64? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?, .number(let text)?:
                guard let count = Int64(text), count >= 0 else { throw malformed("__count is \"\(text.prefix(40))\", not a count") }
                return count
            case let other?: throw malformed("__count is \(other.kindName), not a number")
            }
        }

        func nextLink(_ value: JSONValue?) throws(ODataError) -> String? {
            switch value {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case .object(let object)?:
                if case .string(let text)? = object["uri"] { return text }
                throw malformed("__next is an object without a \"uri\" string")
            case let other?: throw malformed("__next is \(other.kindName), not a link")
            }
        }

        func entity(_ object: JSONObject, set contextSet: String?, depth: Int) throws(ODataError) -> ODataEntity {
            var entity = ODataEntity()
            if let metadataValue = object["__metadata"] {
                guard case .object(let metadata) = metadataValue else {
                    throw malformed("__metadata is \(metadataValue.kindName), not an object")
                }
                entity.metadata = EntityMetadata(
                    uri: metadata["uri"].flatMap(Self.string), type: metadata["type"].flatMap(Self.string),
                    etag: metadata["etag"].flatMap(Self.string)
                )
            }
            if let uri = entity.metadata.uri, let path = Self.entityPath(uri: uri, serviceRoot: decoder.serviceRoot),
               let last = path.segments.last, let key = last.key {
                entity.key = EntityKey(entitySet: last.name, values: key)
                entity.entitySet = path.segments.count == 1 ? last.name : (model?.entitySet(named: last.name) != nil ? last.name : contextSet)
            } else {
                entity.entitySet = contextSet
            }
            let type = entityType(metadataType: entity.metadata.type, set: entity.entitySet)
            let declared = type.map { model!.properties(of: $0) } ?? []
            let navigationNames = Set(type.map { model!.navigationProperties(of: $0).map(\.name) } ?? [])
            entity.properties.reserveCapacity(object.members.count)
            for member in object.members where !member.key.hasPrefix("__") {
                let name = member.key
                if navigationNames.contains(name) {
                    let target = entity.entitySet.flatMap { model?.resolveNavigation(name, fromSet: $0)?.targetSet }
                    entity.navigations.append(NavigationLink(name: name, content: try navigation(member.value, name: name, set: target, depth: depth + 1)))
                } else if let property = declared.first(where: { $0.name == name }) {
                    entity.properties.append(ODataProperty(name: name, value: try typedValue(member.value, type: property.type, name: name, depth: depth + 1)))
                } else if type == nil, let content = try untypedNavigation(member.value, depth: depth + 1) {
                    entity.navigations.append(NavigationLink(name: name, content: content))
                } else {
                    entity.properties.append(ODataProperty(name: name, value: untypedValue(member.value, depth: depth + 1)))
                }
            }
            if entity.key == nil, let type, let set = entity.entitySet {
                entity.key = keyFromProperties(entity, type: type, set: set)
            }
            return entity
        }

        func entityType(metadataType: String?, set: String?) -> EntityType? {
            guard let model else { return nil }
            if let metadataType, let type = model.entityTypes[metadataType] { return type }
            return set.flatMap { model.entityType(ofSet: $0) }
        }

        func keyFromProperties(_ entity: ODataEntity, type: EntityType, set: String) -> EntityKey? {
            let names = model?.keyProperties(of: type) ?? []
            guard !names.isEmpty else { return nil }
            var values: [EntityKey.KeyValue] = []
            for name in names {
                guard let value = entity[name], !value.isNull else { return nil }
                values.append(EntityKey.KeyValue(name: names.count == 1 ? nil : name, value: value))
            }
            return EntityKey(entitySet: set, values: values)
        }

        /// A navigation the model declares: deferred, null, an entity or a collection.
        func navigation(_ value: JSONValue, name: String, set: String?, depth: Int) throws(ODataError) -> NavigationContent {
            if let content = try untypedNavigation(value, set: set, depth: depth) { return content }
            switch value {
            case .null: return .null
            case .object(let object): return .entity(try entity(object, set: set, depth: depth))
            default: throw malformed("the navigation \(name) is \(value.kindName), not an entity, a list or a deferred link")
            }
        }

        /// Recognises navigation shapes without a model: `__deferred`, `results` lists,
        /// arrays of entities, objects with `__metadata.uri`. Nil when it is not one.
        func untypedNavigation(_ value: JSONValue, set: String? = nil, depth: Int) throws(ODataError) -> NavigationContent? {
            guard depth < 96 else { throw malformed("entities nest deeper than 96 levels") }
            switch value {
            case .object(let object):
                if let deferred = object["__deferred"] {
                    guard case .string(let uri)? = deferred["uri"] else { throw malformed("__deferred has no \"uri\" string") }
                    return .deferred(uri: uri)
                }
                if case .array(let elements)? = object["results"] {
                    return .collection(try collection(elements, count: object["__count"], next: object["__next"], set: set, depth: depth))
                }
                if case .object(let metadata)? = object["__metadata"], metadata["uri"] != nil {
                    return .entity(try entity(object, set: set, depth: depth))
                }
                return nil
            case .array(let elements):
                guard elements.allSatisfy({ if case .object = $0 { true } else { false } }) else { return nil }
                return .collection(try collection(elements, count: nil, next: nil, set: set, depth: depth))
            default:
                return nil
            }
        }

        /// The path of an entity's own URI. When the URI is not below the service root (a proxy
        /// rewrote it), its last segment still names the entity: canonical URIs are `…/Set(key)`.
        static func entityPath(uri: String, serviceRoot: String) -> ResourcePath? {
            if let path = ResourcePath.parse(uri: uri, serviceRoot: serviceRoot) { return path }
            let path = ResourcePath.pathPart(of: uri)
            guard let last = ResourcePath.splitSegments(Substring(path)).last else { return nil }
            return ResourcePath.parse(relative: last)
        }

        static func string(_ value: JSONValue) -> String? {
            if case .string(let text) = value { return text }
            return nil
        }
    }
}
