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
    final class Context {
        let decoder: VerboseJSONDecoder
        let url: String?
        /// Decoding plans per entity type (or per set when the type is unknown), built once per document.
        private var plans: [String: TypePlan?] = [:]

        init(decoder: VerboseJSONDecoder, url: String?) {
            self.decoder = decoder
            self.url = url
        }

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
            if let uri = entity.metadata.uri, let key = Self.entityKey(uri: uri) {
                entity.key = key
                entity.entitySet = model == nil || model?.entitySet(named: key.entitySet) != nil ? key.entitySet : contextSet
            } else {
                entity.entitySet = contextSet
            }
            let plan = self.plan(metadataType: entity.metadata.type, set: entity.entitySet)
            entity.properties.reserveCapacity(object.members.count)
            for member in object.members where !member.key.hasPrefix("__") {
                let name = member.key
                if let plan, let target = plan.navigations[name] {
                    entity.navigations.append(NavigationLink(name: name, content: try navigation(member.value, name: name, set: target, depth: depth + 1)))
                } else if let type = plan?.properties[name] {
                    entity.properties.append(ODataProperty(name: name, value: try typedValue(member.value, type: type, name: name, depth: depth + 1)))
                } else if plan == nil, let content = try untypedNavigation(member.value, depth: depth + 1) {
                    entity.navigations.append(NavigationLink(name: name, content: content))
                } else {
                    entity.properties.append(ODataProperty(name: name, value: untypedValue(member.value, depth: depth + 1)))
                }
            }
            if entity.key == nil, let plan, let set = entity.entitySet {
                entity.key = keyFromProperties(entity, keyNames: plan.keyNames, set: set)
            }
            return entity
        }

        /// What the model says about one entity type, in the shape decoding needs.
        struct TypePlan {
            var properties: [String: EdmTypeReference]
            /// Navigation name → the set it leads to (nil when the model cannot tell).
            var navigations: [String: String?]
            var keyNames: [String]
        }

        func plan(metadataType: String?, set: String?) -> TypePlan? {
            guard let model else { return nil }
            // Keyed by the type name when the payload names one (it decides the plan), else by set.
            let cacheKey = metadataType ?? ("|" + (set ?? ""))
            if let cached = plans[cacheKey] { return cached }
            var plan: TypePlan?
            if let type = entityType(metadataType: metadataType, set: set) {
                var properties: [String: EdmTypeReference] = [:]
                for property in model.properties(of: type) { properties[property.name] = property.type }
                var navigations: [String: String?] = [:]
                for navigation in model.navigationProperties(of: type) {
                    navigations[navigation.name] = set.flatMap { model.resolveNavigation(navigation.name, fromSet: $0)?.targetSet }
                }
                plan = TypePlan(properties: properties, navigations: navigations, keyNames: model.keyProperties(of: type))
            }
            plans[cacheKey] = plan
            return plan
        }

        func entityType(metadataType: String?, set: String?) -> EntityType? {
            guard let model else { return nil }
            if let metadataType, let type = model.entityTypes[metadataType] { return type }
            return set.flatMap { model.entityType(ofSet: $0) }
        }

        func keyFromProperties(_ entity: ODataEntity, keyNames names: [String], set: String) -> EntityKey? {
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

        /// The key in an entity's own URI. Canonical entity URIs end in `…/Set(key)`, and the
        /// host or path before it may differ from the service root (servers report their own
        /// host name; proxies rewrite paths), so the last segment names the entity.
        static func entityKey(uri: String) -> EntityKey? {
            if let key = integerKeyFastPath(uri) { return key }
            let path = ResourcePath.pathPart(of: uri)
            guard let last = ResourcePath.splitSegments(Substring(path)).last,
                  let segment = ResourcePath.parse(relative: last)?.segments.last, let key = segment.key
            else { return nil }
            return EntityKey(entitySet: segment.name, values: key)
        }

        /// `…/Name(123)` read straight from the bytes: the common case, without the general parser.
        static func integerKeyFastPath(_ uri: String) -> EntityKey? {
            let utf8 = uri.utf8
            return utf8.withContiguousStorageIfAvailable { bytes -> EntityKey? in
                var end = bytes.count
                guard end > 3, bytes[end - 1] == UInt8(ascii: ")") else { return nil }
                end -= 1
                var value: Int64 = 0
                var digits = 0
                var index = end - 1
                var multiplier: Int64 = 1
                while index >= 0, bytes[index] &- UInt8(ascii: "0") < 10 {
                    let (product, overflowA) = Int64(bytes[index] - UInt8(ascii: "0")).multipliedReportingOverflow(by: multiplier)
                    let (sum, overflowB) = value.addingReportingOverflow(product)
                    guard !overflowA, !overflowB, digits < 18 else { return nil }
                    value = sum
                    multiplier *= 10
                    digits += 1
                    index -= 1
                }
                guard digits > 0, index > 0, bytes[index] == UInt8(ascii: "("),
                      !(digits > 1 && bytes[index + 1] == UInt8(ascii: "0")) else { return nil }
                let nameEnd = index
                index -= 1
                while index >= 0, bytes[index] != UInt8(ascii: "/") {
                    let byte = bytes[index]
                    let isNameByte = byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "A") < 26
                        || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    guard isNameByte else { return nil }
                    index -= 1
                }
                guard nameEnd - index > 1 else { return nil }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<nameEnd]), as: UTF8.self)
                return EntityKey(entitySet: name, value: .int(value))
            } ?? nil
        }

        static func string(_ value: JSONValue) -> String? {
            if case .string(let text) = value { return text }
            return nil
        }
    }
}
