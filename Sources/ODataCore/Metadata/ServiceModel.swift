/// A service's `$metadata` (EDMX 1.0 with CSDL v1–v2, or EDMX 4.0/4.01 with CSDL v4) as a model.
///
/// Type names are stored qualified by namespace (aliases resolved), and each
/// navigation property can be resolved to the entity set it leads to and how
/// many entities it holds.
public struct ServiceModel: Sendable {
    public var entityTypes: [String: EntityType] = [:]
    public var complexTypes: [String: ComplexType] = [:]
    public var associations: [String: Association] = [:]
    public var containers: [EntityContainer] = []
    /// `DataServiceVersion` the document declared, if any.
    public var dataServiceVersion: String?
    /// The `Version` of the `<edmx:Edmx>` element: `1.0` for OData v1–v2, `4.0` or `4.01` for v4.
    public var edmxVersion: String?
    /// Function imports, actions and functions, in document order (``ServiceOperation``).
    public var operations: [ServiceOperation] = []
    /// `Common.ValueListMapping`s aimed at properties of another service (this one lists their values), by target
    /// (`NS.Type/property`, aliases resolved); see ``valueListMappings(for:ofType:)``.
    public var valueListMappings: [String: [ValueList]] = [:]
    /// Where each entity set is (container, position), for ``entitySet(named:)`` on a service of thousands of sets;
    /// made by ``indexEntitySets()``.
    var setIndex: [String: (Int, Int)] = [:]
    /// The sets of contained entities (v4 `ContainsTarget`, issue 37), by their name `Person/Trips`: made by
    /// ``indexEntitySets()``; see ``entitySet(named:)``.
    var containedSets: [String: EntitySet] = [:]
    /// Each singleton as a set of its one entity, by name (``Singleton/asEntitySet``).
    var singletonSets: [String: EntitySet] = [:]
    /// Each navigation name a derived type declares, with those types (qualified, sorted): made by
    /// ``indexEntitySets()``, so a navigation a set's type lacks is looked up here, not among every type.
    var derivedNavigationTypes: [String: [String]] = [:]

    /// Whether the service speaks OData v4 (its `$metadata` is EDMX 4.x).
    public var isVersion4: Bool { edmxVersion?.hasPrefix("4") == true }

    public init() {}

    /// The default container (`m:IsDefaultEntityContainer="true"`), else the first.
    public var defaultContainer: EntityContainer? {
        containers.first(where: \.isDefault) ?? containers.first
    }

    /// Entity sets of the default container, in document order.
    public var entitySets: [EntitySet] { defaultContainer?.entitySets ?? [] }

    /// The sets of contained entities (v4 `ContainsTarget`), by name (`Person/Trips`); see ``Containment``.
    public var containedEntitySets: [EntitySet] {
        containedSets.values.sorted { $0.name < $1.name }
    }

    /// Singletons of the default container, in document order.
    public var singletons: [Singleton] { defaultContainer?.singletons ?? [] }

    /// Whether the service takes `$filter` on `property` of `entitySet` (its `Capabilities.FilterRestrictions`
    /// and the property's `sap:filterable`); a set or property it does not describe, yes.
    public func filters(_ entitySet: String, by property: String) -> Bool {
        guard let set = self.entitySet(named: entitySet) else { return true }
        guard set.isFilterable, !set.nonFilterable.contains(property) else { return false }
        guard let type = entityTypes[set.entityType] else { return true }
        return properties(of: type).first { $0.name == property }?.isFilterable ?? true
    }

    /// Whether the service answers a free-text search of `entitySet` (v4 `$search`, SAP's v2 `search`): only where it
    /// says so (`Capabilities.SearchRestrictions`, `sap:searchable`), since most services that say nothing refuse it.
    public func searches(_ entitySet: String) -> Bool {
        self.entitySet(named: entitySet)?.isSearchable == true
    }

    /// What a read of `entitySet` must filter by, when the service reads none without a `$filter`
    /// (`FilterRestrictions`' `RequiresFilter` and `RequiredProperties`, v2 `sap:requires-filter` and
    /// `sap:required-in-filter`): the properties it must name (none: any filter will do); nil when it needs none.
    public func requiredFilter(_ entitySet: String) -> [String]? {
        guard let set = self.entitySet(named: entitySet) else { return nil }
        let type = entityTypes[set.entityType]
        let marked = type.map { properties(of: $0).filter(\.isRequiredInFilter).map(\.name) } ?? []
        let required = set.requiredFilterProperties + marked.filter { !set.requiredFilterProperties.contains($0) }
        return set.requiresFilter || !required.isEmpty ? required : nil
    }

    /// The directions the service sorts `entitySet` by `property` in (`AscendingOnlyProperties`,
    /// `DescendingOnlyProperties`); both where it says nothing.
    public func sortDirections(_ entitySet: String, by property: String) -> (ascending: Bool, descending: Bool) {
        guard let set = self.entitySet(named: entitySet) else { return (true, true) }
        return (!set.descendingOnly.contains(property), !set.ascendingOnly.contains(property))
    }

    /// The properties the service offers to filter `entitySet` by (`UI.SelectionFields`), those it declares only.
    public func selectionFields(ofSet entitySet: String) -> [String] {
        guard let type = entityType(ofSet: entitySet), let fields = type.ui.selectionFields else { return [] }
        let names = Set(properties(of: type).map(\.name))
        return fields.filter { names.contains($0) }
    }

    /// Whether the service takes `$orderby` on `property` of `entitySet` (`Capabilities.SortRestrictions`,
    /// `sap:sortable`); a set or property it does not describe, yes.
    public func sorts(_ entitySet: String, by property: String) -> Bool {
        guard let set = self.entitySet(named: entitySet) else { return true }
        guard set.isSortable, !set.nonSortable.contains(property) else { return false }
        guard let type = entityTypes[set.entityType] else { return true }
        return properties(of: type).first { $0.name == property }?.isSortable ?? true
    }

    /// The entity set called `name` in any container.
    public func entitySet(named name: String) -> EntitySet? {
        // (the index is checked before it is trusted: a model changed after it was made falls back to the search)
        if let (container, set) = setIndex[name], container < containers.count,
            set < containers[container].entitySets.count, containers[container].entitySets[set].name == name
        {
            return containers[container].entitySets[set]
        }
        for container in containers {
            if let set = container.entitySets.first(where: { $0.name == name }) { return set }
        }
        // Contained entities: `Person(1)/Trips` (those of one person) and `Person/Trips` name the same set.
        if !containedSets.isEmpty, name.unicodeScalars.contains("/") {
            return containedSets[Containment.template(of: name)]
        }
        return singletonSets[name]
    }

    /// Indexes the entity sets by name (the first container that has a name wins, as the search finds it).
    mutating func indexEntitySets() {
        setIndex = [:]
        for (container, entry) in containers.enumerated().reversed() {
            for (set, entitySet) in entry.entitySets.enumerated().reversed() {
                setIndex[entitySet.name] = (container, set)
            }
        }
        singletonSets = [:]
        for container in containers.reversed() {
            for singleton in container.singletons { singletonSets[singleton.name] = singleton.asEntitySet }
        }
        indexContainedSets()
        derivedNavigationTypes = [:]
        for (name, type) in entityTypes where type.baseType != nil {
            for navigation in type.navigationProperties {
                derivedNavigationTypes[navigation.name, default: []].append(name)
            }
        }
        for name in derivedNavigationTypes.keys { derivedNavigationTypes[name]?.sort() }
    }

    /// Makes a set for each containment navigation (v4 `ContainsTarget`) of each set and singleton, and of the
    /// contained sets in turn, to ``Containment/deepest`` levels: `Person/Trips`, `Person/Trips/PlanItems`.
    mutating func indexContainedSets() {
        containedSets = [:]
        guard isVersion4 else { return }
        var pending: [(name: String, type: String, depth: Int)] =
            containers.flatMap { container in
                container.entitySets.map { ($0.name, $0.entityType, 1) }
                    + container.singletons.map { ($0.name, $0.entityType, 1) }
            }
        while let (name, typeName, depth) = pending.popLast() {
            guard depth <= Containment.deepest, let type = entityTypes[typeName] else { continue }
            for navigation in navigationProperties(of: type) where navigation.containsTarget {
                guard let target = navigation.type, containedSets.count < Containment.mostSets else { continue }
                let isCollection = target.hasPrefix("Collection(") && target.hasSuffix(")")
                let targetType = isCollection ? String(target.dropFirst(11).dropLast()) : target
                let setName = name + "/" + navigation.name
                guard entityTypes[targetType] != nil, containedSets[setName] == nil else { continue }
                var set = EntitySet(name: setName, entityType: targetType)
                set.containment = Containment(parent: name, navigation: navigation.name, isCollection: isCollection)
                containedSets[setName] = set
                pending.append((setName, targetType, depth + 1))
            }
        }
    }

    /// The entity type of a set.
    public func entityType(ofSet name: String) -> EntityType? {
        entitySet(named: name).flatMap { entityTypes[$0.entityType] }
    }

    /// The key properties of a type, inherited from its base types when it declares none.
    public func keyProperties(of type: EntityType) -> [String] {
        var current: EntityType? = type
        var guardCount = 0
        while let candidate = current, guardCount < 32 {
            if !candidate.key.isEmpty { return candidate.key }
            current = candidate.baseType.flatMap { entityTypes[$0] }
            guardCount += 1
        }
        return []
    }

    /// All properties of a type, base types' first.
    public func properties(of type: EntityType) -> [Property] {
        chain(of: type).flatMap(\.properties)
    }

    /// All navigation properties of a type, base types' first.
    public func navigationProperties(of type: EntityType) -> [NavigationProperty] {
        chain(of: type).flatMap(\.navigationProperties)
    }

    /// The qualified names of a type and its base types, the type first (cycles cut): what an annotation aimed at
    /// one of its properties may name.
    public func qualifiedNames(of type: EntityType) -> [String] {
        chain(of: type).reversed().map(\.qualifiedName)
    }

    /// The type and its base types, root first (cycles cut, and no deeper than ``deepestDerivation`` levels).
    func chain(of type: EntityType) -> [EntityType] {
        var result = [type]
        var seen: Set<String> = [type.qualifiedName]
        while result.count <= Self.deepestDerivation, let base = result[0].baseType, let baseType = entityTypes[base],
            !seen.contains(base)
        {
            result.insert(baseType, at: 0)
            seen.insert(base)
        }
        return result
    }

    /// How many base types a type is read through: a deeper chain (a hostile document's) is cut there.
    public static let deepestDerivation = 32

    /// Whether the type named `name` is `base` or derived from it.
    public func isType(_ name: String, derivedFrom base: EntityType) -> Bool {
        guard let type = entityTypes[name] else { return false }
        return chain(of: type).contains { $0.qualifiedName == base.qualifiedName }
    }

    /// Whether an entity of `type` may hold dynamic properties: it or a type it derives from is open.
    public func isOpen(_ type: EntityType) -> Bool {
        chain(of: type).contains(where: \.isOpen)
    }

    /// Whether entities of `type` are media entities (`HasStream`, on it or a type it derives from).
    public func hasStream(_ type: EntityType) -> Bool {
        chain(of: type).contains(where: \.hasStream)
    }

    /// The type a type-cast segment (`Staff/NS.Mechanic`) names after a collection of `set`: one derived from the
    /// set's type; nil when `segment` names none.
    public func castType(_ segment: String, onSet set: String) -> EntityType? {
        guard let setType = entityType(ofSet: set), segment != setType.qualifiedName, let type = entityTypes[segment],
            isType(segment, derivedFrom: setType)
        else { return nil }
        return type
    }

    /// Whether the service addresses entities by key segments (`Staff/3`; v4 `KeyAsSegmentSupported` on its
    /// container).
    public var keyAsSegment: Bool {
        isVersion4 && containers.contains(where: \.keyAsSegment)
    }

    /// The entity an address of a service that takes keys as segments names (`…/Staff/3`, `…/People/russell`): its
    /// last two segments, a set of a single key and that key's literal; nil otherwise.
    public func keyAsSegmentKey(_ uri: String) -> EntityKey? {
        guard keyAsSegment else { return nil }
        let path = ResourcePath.pathPart(of: uri)
        let segments = ResourcePath.splitSegments(Substring(path)).filter { !$0.isEmpty }
        guard segments.count >= 2, let set = entitySet(named: PercentEncoding.decode(segments[segments.count - 2])),
            let type = entityTypes[set.entityType]
        else { return nil }
        let keys = keyProperties(of: type)
        let text = PercentEncoding.decode(segments[segments.count - 1])
        guard keys.count == 1, !text.isEmpty else { return nil }
        let value: ODataValue
        switch keyTypes(ofEntitySet: set.name)[keys[0]] {
        case .byte?, .sByte?, .int16?, .int32?, .int64?:
            guard let number = Int64(text) else { return nil }
            value = .int(number)
        case .guid?: value = .guid(text)
        default: value = .string(text)
        }
        return EntityKey(entitySet: set.name, value: value)
    }

    /// The types derived from `type`, however deep, by name.
    public func derivedTypes(of type: EntityType) -> [EntityType] {
        entityTypes.values.filter {
            $0.qualifiedName != type.qualifiedName && isType($0.qualifiedName, derivedFrom: type)
        }
        .sorted { $0.qualifiedName < $1.qualifiedName }
    }

    /// The type of an entity of `set` whose payload names `name` (`@odata.type`, v2 `__metadata.type`): that type
    /// when the model has it and it is the set's type or derived from it; otherwise the set's type (a name the model
    /// lacks, or a type the set cannot hold, is not trusted).
    public func entityType(named name: String?, inSet set: String) -> EntityType? {
        guard let setType = entityType(ofSet: set) else { return name.flatMap { entityTypes[$0] } }
        guard let name, name != setType.qualifiedName, let type = entityTypes[name],
            isType(name, derivedFrom: setType)
        else { return setType }
        return type
    }

    /// Edm types of the key properties of a set, for typed URL literals.
    public func keyTypes(ofEntitySet name: String) -> [String: EdmPrimitiveType] {
        guard let type = entityType(ofSet: name) else { return [:] }
        let props = properties(of: type)
        var result: [String: EdmPrimitiveType] = [:]
        for key in keyProperties(of: type) {
            if let primitive = props.first(where: { $0.name == key })?.type.primitive { result[key] = primitive }
        }
        return result
    }

    /// Where navigation `name` of an entity in `sourceSet` leads.
    public func resolveNavigation(_ name: String, fromSet sourceSet: String) -> ResolvedNavigation? {
        guard let set = entitySet(named: sourceSet), let type = entityTypes[set.entityType] else { return nil }
        guard let navigation = navigationProperties(of: type).first(where: { $0.name == name }) else {
            // A navigation of a type derived from the set's (v4): reached through a cast to that type.
            guard isVersion4, let (derived, navigation) = derivedNavigation(name, below: type),
                let target = navigation.type
            else { return nil }
            var resolved = resolveVersion4(navigation, target: target, from: set, named: sourceSet)
            resolved?.declaringType = derived
            return resolved
        }
        if let target = navigation.type {
            return resolveVersion4(navigation, target: target, from: set, named: sourceSet)
        }
        guard let association = associations[navigation.relationship],
            let toEnd = association.ends.first(where: { $0.role == navigation.toRole })
        else { return nil }
        // The association set in the same container tells which set the far end lives in.
        let container = containers.first { $0.entitySets.contains { $0.name == sourceSet } }
        var targetSet: String?
        for associationSet in container?.associationSets ?? []
        where associationSet.association == navigation.relationship {
            let from = associationSet.ends.first { $0.role == navigation.fromRole }
            if from == nil || from?.entitySet == sourceSet {
                targetSet = associationSet.ends.first { $0.role == navigation.toRole }?.entitySet
                if targetSet != nil { break }
            }
        }
        // Without an association set, fall back to the only set of the target type.
        if targetSet == nil {
            let candidates = (container?.entitySets ?? []).filter { $0.entityType == toEnd.type }
            if candidates.count == 1 { targetSet = candidates[0].name }
        }
        guard let targetSet else { return nil }
        return ResolvedNavigation(
            name: name, sourceSet: sourceSet, targetSet: targetSet, targetType: toEnd.type,
            multiplicity: toEnd.multiplicity
        )
    }
}
