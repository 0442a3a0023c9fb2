extension PayloadDecoder {
    /// Decoding state for one document.
    final class Context {
        let decoder: PayloadDecoder
        let tape: JSONTape
        let url: String?
        /// Decoding plans per type the payload names and set, built once per document.
        private var plans: [PlanKey: TypePlan?] = [:]

        /// What a plan is chosen by: the type an entity names (if any) and its set.
        struct PlanKey: Hashable {
            var type: String?
            var set: String?
        }
        /// Entities decoded so far, nested ones included, against ``PayloadDecoder/maxEntities``.
        private var entityCount = 0
        /// A v4 document: annotations (`@…`) instead of `__metadata`, navigations bare.
        let version4: Bool
        /// The type the answer's context names (a type-cast request's): that of its top-level entities that name
        /// none of their own.
        var castType: String?

        init(decoder: PayloadDecoder, tape: JSONTape, url: String?, version4: Bool = false) {
            self.decoder = decoder
            self.tape = tape
            self.url = url
            self.version4 = version4
        }

        var model: ServiceModel? { decoder.model }

        func malformed(_ message: String) -> ODataError { decoder.malformed(message, url) }

        /// Decodes the entity objects of array node `array`.
        func collection(
            _ array: Int, count: Int?, next: Int?, set: String?, depth: Int
        ) throws(ODataError) -> ODataCollection {
            try admit(Int(tape[array].count))
            var entities: [ODataEntity] = []
            var removed: [EntityKey] = []
            entities.reserveCapacity(Int(tape[array].count))
            var element = tape.firstChild(array)
            for position in 0..<Int(tape[array].count) {
                guard tape[element].kind == .object else {
                    throw malformed(
                        "entry \(position) of a collection is \(tape.kindName(element)), not an entity object")
                }
                if let gone = try removedKey(element, position: position) {
                    removed.append(gone)
                } else {
                    entities.append(try entity(element, set: set, depth: depth))
                }
                element = tape.after(element)
            }
            return ODataCollection(
                entities: entities, count: try self.count(count), nextLink: try nextLink(next), removed: removed)
        }

        /// The key of a delta answer's entry that says its entity left the collection; nil for an entity.
        /// v4.01: `{"@removed": {…}, "@id": "People(1)"}`; v4.0: `{"@odata.context": "…/$deletedEntity", "id": …}`;
        /// v2 (SAP): `{"__metadata": {"uri": "…/People(1)", "deleted": true}}`.
        func removedKey(_ object: Int, position: Int) throws(ODataError) -> EntityKey? {
            var id: String?
            if version4 {
                if tape.member(object, "@removed") != nil || tape.member(object, "@odata.removed") != nil {
                    id = stringMember(object, "@id") ?? stringMember(object, "@odata.id") ?? stringMember(object, "id")
                } else if let context = stringMember(object, "@odata.context"), context.hasSuffix("$deletedEntity") {
                    id = stringMember(object, "id") ?? stringMember(object, "@id")
                } else {
                    return nil
                }
            } else {
                guard let metadata = tape.member(object, "__metadata"), tape[metadata].kind == .object,
                    let deleted = tape.member(metadata, "deleted"), tape[deleted].kind == .true
                else { return nil }
                id = stringMember(metadata, "uri") ?? stringMember(metadata, "id")
            }
            guard let id, let key = Self.entityKey(uri: id) ?? model?.keyAsSegmentKey(id) else {
                throw malformed("entry \(position) says an entity was removed, but names none")
            }
            return key
        }

        /// A link member (`__delta`, `@odata.deltaLink`): a string, or v2's `{"uri": …}`.
        func link(_ node: Int?, named name: String) throws(ODataError) -> String? {
            guard let node else { return nil }
            switch tape[node].kind {
            case .null: return nil
            case .string: return tape.string(node)
            case .object:
                if let uri = tape.member(node, "uri"), tape[uri].kind == .string { return tape.string(uri) }
                throw malformed("\(name) is an object without a \"uri\" string")
            default: throw malformed("\(name) is \(tape.kindName(node)), not a link")
            }
        }

        func count(_ node: Int?) throws(ODataError) -> Int64? {
            guard let node else { return nil }
            switch tape[node].kind {
            case .null: return nil
            case .string, .number:
                let text = tape.string(node)
                guard let count = Int64(text), count >= 0 else {
                    throw malformed("__count is \"\(text.prefix(40))\", not a count")
                }
                return count
            default: throw malformed("__count is \(tape.kindName(node)), not a number")
            }
        }

        func nextLink(_ node: Int?) throws(ODataError) -> String? { try link(node, named: "__next") }

        /// Counts `more` entities against the limit, refusing the answer past it.
        func admit(_ more: Int) throws(ODataError) {
            guard entityCount + more <= decoder.maxEntities else {
                throw ODataError(
                    kind: .refused,
                    message: "the answer holds more than \(decoder.maxEntities) entities, the limit for one answer",
                    url: url
                )
            }
        }

        func entity(_ object: Int, set contextSet: String?, depth: Int) throws(ODataError) -> ODataEntity {
            try admit(1)
            entityCount += 1
            var entity = ODataEntity()
            if let metadata = tape.member(object, "__metadata") {
                guard tape[metadata].kind == .object else {
                    throw malformed("__metadata is \(tape.kindName(metadata)), not an object")
                }
                entity.metadata = EntityMetadata(
                    uri: stringMember(metadata, "uri"), type: stringMember(metadata, "type"),
                    etag: stringMember(metadata, "etag")
                )
                // (a media entity's says more than uri, type and etag: where its content is, and what it is)
                if tape[metadata].count > 3 { entity.properties += mediaOfVersion2(metadata) }
            }
            if version4 {
                entity.metadata = EntityMetadata(
                    uri: stringMember(object, "@odata.id") ?? stringMember(object, "@odata.editLink"),
                    type: stringMember(object, "@odata.type").map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
                        ?? (depth == 0 ? castType : nil),
                    etag: stringMember(object, "@odata.etag"))
            }
            // A v4 id is optional and may be key-as-segment; with a model the key properties are surer.
            if let uri = entity.metadata.uri, !version4 || model == nil, let key = Self.entityKey(uri: uri) {
                entity.key = key
                entity.entitySet =
                    model == nil || model?.entitySet(named: key.entitySet) != nil ? key.entitySet : contextSet
            } else {
                entity.entitySet = contextSet
            }
            let plan = self.plan(metadataType: entity.metadata.type, set: entity.entitySet)
            let memberCount = Int(tape[object].count)
            entity.properties.reserveCapacity(memberCount)
            var contained: [(value: Int, name: String)] = []
            var key = tape.firstChild(object)
            for _ in 0..<memberCount {
                let value = key + 1
                defer { key = tape.after(value) }
                if tape.isReservedKey(key) { continue }
                if version4 && tape.isAnnotationKey(key) {
                    // (what it says of a stream is kept beside the values: MediaStream)
                    if tape.mayBeMediaAnnotation(key), tape[value].kind == .string,
                        let kept = MediaStream.keptName(tape.string(key))
                    {
                        entity.properties.append(ODataProperty(name: kept, value: .string(tape.string(value))))
                    }
                    continue
                }
                let name = tape.string(key)
                switch plan?.members[name] {
                case .navigation(let target)?:
                    entity.navigations.append(
                        try expanded(value, name: name, in: object, set: target, depth: depth + 1))
                    continue
                case .contained?:
                    // (read once the key is known: it names the set its targets are in)
                    contained.append((value, name))
                    continue
                case .property(let type)?:
                    entity.properties.append(
                        ODataProperty(
                            name: name, value: try typedValue(value, type: type, name: name, depth: depth + 1)))
                    continue
                case nil:
                    break
                }
                if plan == nil, let content = try untypedNavigation(value, depth: depth + 1) {
                    entity.navigations.append(NavigationLink(name: name, content: content))
                } else {
                    entity.properties.append(ODataProperty(name: name, value: untypedValue(value, depth: depth + 1)))
                }
            }
            if entity.key == nil, let plan, let set = entity.entitySet {
                // (a singleton's entity is named by the singleton, whatever its key properties hold)
                entity.key =
                    plan.isSingleton
                    ? EntityKey(singleton: set) : keyFromProperties(entity, keyNames: plan.keyNames, set: set)
            }
            for (value, name) in contained {
                // (without a key of their container the targets have none either: they are read, not kept)
                let set = entity.key.map { $0.canonical + "/" + name }
                entity.navigations.append(try expanded(value, name: name, in: object, set: set, depth: depth + 1))
            }
            return entity
        }

        /// The navigation `name` of entity `object` as its value `value` holds it; a v4 partial expansion says so
        /// beside it: `Items@odata.nextLink`, `Items@odata.count`.
        func expanded(
            _ value: Int, name: String, in object: Int, set: String?, depth: Int
        ) throws(ODataError) -> NavigationLink {
            var content = try navigation(value, name: name, set: set, depth: depth)
            if version4, case .collection(var collection) = content {
                collection.nextLink = try nextLink(tape.member(object, named: name + "@odata.nextLink"))
                collection.count = try count(tape.member(object, named: name + "@odata.count"))
                content = .collection(collection)
            }
            return NavigationLink(name: name, content: content)
        }

        /// v2's `media_src`, `content_type` and `media_etag` of a media entity's `__metadata`, under v4's names.
        func mediaOfVersion2(_ metadata: Int) -> [ODataProperty] {
            let said: [(String, String?)] = [
                (MediaStream.contentTypeName, stringMember(metadata, "content_type")),
                (MediaStream.readLinkName, stringMember(metadata, "media_src")),
                (MediaStream.etagName, stringMember(metadata, "media_etag")),
            ]
            return said.compactMap { name, text in text.map { ODataProperty(name: name, value: .string($0)) } }
        }

        /// The text of string member `name` of object `object`, if it is a string.
        func stringMember(_ object: Int, _ name: StaticString) -> String? {
            guard let node = tape.member(object, name), tape[node].kind == .string else { return nil }
            return tape.string(node)
        }

        /// What the model says about one entity type, in the shape decoding needs.
        struct TypePlan {
            /// What each member name is, so one lookup decides how to decode it.
            enum Member {
                case property(EdmTypeReference)
                /// A navigation and the set it leads to (nil when the model cannot tell).
                case navigation(String?)
                /// A containment navigation (v4 `ContainsTarget`): its targets' set is named by the entity's key
                /// (`Person(1)/Trips`), known once the entity is read.
                case contained
            }

            var members: [String: Member]
            var keyNames: [String]
            /// The set is a singleton: its entity is keyed by the singleton's name.
            var isSingleton = false
        }

        func plan(metadataType: String?, set instance: String?) -> TypePlan? {
            guard let model else { return nil }
            // (one plan serves the contained entities of every container: `Person(1)/Trips` as `Person/Trips`)
            let set = instance.map(Containment.template(of:))
            // Keyed by the type the payload names and the set (the set decides whether that type is trusted).
            let cacheKey = PlanKey(type: metadataType, set: set)
            if let cached = plans[cacheKey] { return cached }
            var plan: TypePlan?
            if let type = entityType(metadataType: metadataType, set: set) {
                var members: [String: TypePlan.Member] = [:]
                for property in model.properties(of: type) { members[property.name] = .property(property.type) }
                for navigation in model.navigationProperties(of: type) {
                    let resolved = set.flatMap { model.resolveNavigation(navigation.name, fromSet: $0) }
                    members[navigation.name] =
                        resolved?.isContained == true ? .contained : .navigation(resolved?.targetSet)
                }
                plan = TypePlan(
                    members: members, keyNames: model.keyProperties(of: type),
                    isSingleton: set.flatMap { model.entitySet(named: $0)?.isSingleton } ?? false)
            }
            plans[cacheKey] = plan
            return plan
        }

        func entityType(metadataType: String?, set: String?) -> EntityType? {
            guard let model else { return nil }
            // (a type the set cannot hold is not trusted: its members are read by the set's type)
            if let set { return model.entityType(named: metadataType, inSet: set) }
            return metadataType.flatMap { model.entityTypes[$0] }
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
        func navigation(_ value: Int, name: String, set: String?, depth: Int) throws(ODataError) -> NavigationContent {
            if let content = try untypedNavigation(value, set: set, depth: depth) { return content }
            switch tape[value].kind {
            case .null: return .null
            case .object: return .entity(try entity(value, set: set, depth: depth))
            default:
                throw malformed(
                    "the navigation \(name) is \(tape.kindName(value)), not an entity, a list or a deferred link")
            }
        }

        /// Recognises navigation shapes without a model: `__deferred`, `results` lists,
        /// arrays of entities, objects with `__metadata.uri`. Nil when it is not one.
        func untypedNavigation(_ value: Int, set: String? = nil, depth: Int) throws(ODataError) -> NavigationContent? {
            guard depth < 96 else { throw malformed("entities nest deeper than 96 levels") }
            switch tape[value].kind {
            case .object:
                if let deferred = tape.member(value, "__deferred") {
                    guard tape[deferred].kind == .object, let uri = stringMember(deferred, "uri") else {
                        throw malformed("__deferred has no \"uri\" string")
                    }
                    return .deferred(uri: uri)
                }
                if let results = tape.member(value, "results"), tape[results].kind == .array {
                    return .collection(
                        try collection(
                            results, count: tape.member(value, "__count"), next: tape.member(value, "__next"), set: set,
                            depth: depth
                        ))
                }
                if let metadata = tape.member(value, "__metadata"), tape[metadata].kind == .object,
                    tape.member(metadata, "uri") != nil
                {
                    return .entity(try entity(value, set: set, depth: depth))
                }
                return nil
            case .array:
                var element = tape.firstChild(value)
                for _ in 0..<tape[value].count {
                    guard tape[element].kind == .object else { return nil }
                    element = tape.after(element)
                }
                return .collection(try collection(value, count: nil, next: nil, set: set, depth: depth))
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
                    let (product, overflowA) = Int64(bytes[index] - UInt8(ascii: "0")).multipliedReportingOverflow(
                        by: multiplier)
                    let (sum, overflowB) = value.addingReportingOverflow(product)
                    guard !overflowA, !overflowB, digits < 18 else { return nil }
                    value = sum
                    multiplier *= 10
                    digits += 1
                    index -= 1
                }
                guard digits > 0, index > 0, bytes[index] == UInt8(ascii: "("),
                    !(digits > 1 && bytes[index + 1] == UInt8(ascii: "0"))
                else { return nil }
                let nameEnd = index
                index -= 1
                while index >= 0, bytes[index] != UInt8(ascii: "/") {
                    let byte = bytes[index]
                    let isNameByte =
                        byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "A") < 26
                        || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                    guard isNameByte else { return nil }
                    index -= 1
                }
                guard nameEnd - index > 1 else { return nil }
                let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<nameEnd]), as: UTF8.self)
                return EntityKey(entitySet: name, value: .int(value))
            } ?? nil
        }
    }
}
