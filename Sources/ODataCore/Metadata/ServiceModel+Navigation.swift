import Foundation

// Navigations across the model: through derived types and casts, many-to-many joins, partners and link entities,
// and what a navigation resolves to.

extension ServiceModel {
    /// The navigation `name` a type derived from `base` declares, and that type's qualified name: the first such
    /// type by name, so the same one is found every time.
    func derivedNavigation(_ name: String, below base: EntityType) -> (String, NavigationProperty)? {
        for typeName in derivedNavigationTypes[name] ?? [] where typeName != base.qualifiedName {
            guard let type = entityTypes[typeName],
                let navigation = type.navigationProperties.first(where: { $0.name == name }),
                isType(typeName, derivedFrom: base)
            else { continue }
            return (typeName, navigation)
        }
        return nil
    }

    /// Whether any type derived from another declares navigations of its own (v4): only then do paths need casts.
    public var hasDerivedNavigations: Bool { isVersion4 && !derivedNavigationTypes.isEmpty }

    /// The entity set a path lists or names the entity of (`Person(1)/PersonCar` → `PersonCar`; a type cast,
    /// `Staff/NS.Mechanic`, keeps its set; contained entities, `Person(1)/Trips`, are in the set their container's path
    /// names); nil when the model cannot tell.
    public func entitySet(of path: ResourcePath) -> String? {
        guard let first = path.segments.first?.name, var set = listedSet(ofSegment: first) else { return nil }
        for (index, segment) in path.segments.enumerated().dropFirst() {
            if segment.key == nil, castType(segment.name, onSet: set) != nil { continue }
            guard let next = resolveNavigation(segment.name, fromSet: set) else { return nil }
            guard next.isContained else {
                set = next.targetSet
                continue
            }
            // (the path before must end in one entity)
            let container = ResourcePath(segments: Array(path.segments[..<index]))
            guard
                container.segments.last?.key != nil
                    || (container.segments.count == 1
                        && entitySet(named: container.segments[0].name)?.isSingleton == true)
            else { return nil }
            set = container.canonical + "/" + segment.name
        }
        return set
    }

    /// `$expand` paths from the entity set `set` with a type cast before each navigation only a type derived from
    /// its source's declares (`NS.Mechanic/Certificates`), as v4 expands it; each as given when it has none.
    public func castingDerivedExpansions(_ paths: [String], fromSet set: String) -> [String] {
        guard hasDerivedNavigations else { return paths }
        return paths.map { path in
            var current = set
            var names: [String] = []
            for name in path.split(separator: "/").map(String.init) {
                guard let resolved = resolveNavigation(name, fromSet: current) else { return path }
                if let derived = resolved.declaringType { names.append(derived) }
                names.append(name)
                current = resolved.targetSet
            }
            return names.joined(separator: "/")
        }
    }

    /// `path` with a type cast before each navigation only a type derived from its entity's declares
    /// (`Staff(3)/NS.Mechanic/Tools`), as v4 addresses it; `path` itself when it has none.
    public func castingDerivedNavigations(_ path: ResourcePath) -> ResourcePath {
        guard hasDerivedNavigations, path.segments.count > 1, let first = path.segments.first?.name,
            var set = listedSet(ofSegment: first)
        else { return path }
        var segments = [path.segments[0]]
        for segment in path.segments.dropFirst() {
            if segment.key == nil, castType(segment.name, onSet: set) != nil {
                segments.append(segment)
                continue
            }
            guard let resolved = resolveNavigation(segment.name, fromSet: set) else { return path }
            if let derived = resolved.declaringType, segments.last?.name != derived {
                segments.append(ResourcePath.Segment(name: derived))
            }
            segments.append(segment)
            set = resolved.targetSet
        }
        return segments.count == path.segments.count ? path : ResourcePath(segments: segments)
    }
}

extension ServiceModel {
    /// Whether `navigation` of `sourceSet` joins many to many without a link entity (v2: both ends of its
    /// association `*`; v4: a collection whose partner is a collection too): what joins two of its entities is a
    /// link of its own (`$links`, `$ref`), and removing one from the other's list must not delete either.
    public func isManyToMany(_ name: String, fromSet sourceSet: String) -> Bool {
        guard let resolved = resolveNavigation(name, fromSet: sourceSet), resolved.isCollection,
            let set = entitySet(named: sourceSet), let type = entityTypes[set.entityType],
            let navigation = navigationProperties(of: type).first(where: { $0.name == name })
        else { return false }
        if navigation.type != nil {
            guard let partnerName = navigation.partner, let target = entityTypes[resolved.targetType],
                let partner = navigationProperties(of: target).first(where: { $0.name == partnerName })
            else { return false }
            return partner.type?.hasPrefix("Collection(") == true
        }
        guard let association = associations[navigation.relationship] else { return false }
        return association.ends.count == 2 && association.ends.allSatisfy { $0.multiplicity == .many }
    }

    /// The navigation back from where `name` of `sourceSet` leads (`PersonCar`'s `Car` → `Car`'s `PersonCar`): v4's
    /// `Partner`; in v2 the navigation of the target type on the same association with the roles swapped. Nil where
    /// there is none, or more than one.
    public func partnerNavigation(_ name: String, fromSet sourceSet: String) -> String? {
        guard let resolved = resolveNavigation(name, fromSet: sourceSet),
            let set = entitySet(named: sourceSet), let type = entityTypes[set.entityType],
            let navigation = navigationProperties(of: type).first(where: { $0.name == name }),
            let target = entityTypes[resolved.targetType]
        else { return nil }
        if navigation.type != nil {
            guard let partner = navigation.partner,
                navigationProperties(of: target).contains(where: { $0.name == partner })
            else { return nil }
            return partner
        }
        let back = navigationProperties(of: target).filter {
            $0.relationship == navigation.relationship && $0.fromRole == navigation.toRole
                && $0.toRole == navigation.fromRole
        }
        return back.count == 1 ? back[0].name : nil
    }

    /// The path through a link entity to what it links, when `name` leads from `sourceSet` to one: `Person`'s
    /// `PersonCar` leads to `PersonCar` rows that hold only keys and stamps (what the service sets: concurrency
    /// tokens, computed properties) and two to-one navigations, one back to the person and one on to a car, so
    /// `[PersonCar, Car]`. Nil for a navigation to anything else, or where the far end is not clear.
    public func linkHop(_ name: String, fromSet sourceSet: String) -> [String]? {
        guard let first = resolveNavigation(name, fromSet: sourceSet), first.isCollection,
            let linkType = entityTypes[first.targetType]
        else { return nil }
        let keys = Set(keyProperties(of: linkType))
        let onlyKeysAndStamps = properties(of: linkType).allSatisfy { property in
            keys.contains(property.name) || property.isConcurrencyToken
                || (!property.isCreatable && !property.isUpdatable)
        }
        guard onlyKeysAndStamps else { return nil }
        let toOne = navigationProperties(of: linkType).compactMap { navigation in
            resolveNavigation(navigation.name, fromSet: first.targetSet).flatMap { $0.isCollection ? nil : $0 }
        }
        guard toOne.count == 2 else { return nil }
        let onward = toOne.filter { $0.targetSet != sourceSet }
        // (a link of a set to itself, as friends are, has no one far end to tell apart by its set)
        guard onward.count == 1 else { return nil }
        return [name, onward[0].name]
    }

    /// A v4 navigation: its binding in the source set says the target set; else the only set of its type.
    func resolveVersion4(
        _ navigation: NavigationProperty, target: String, from set: EntitySet, named sourceSet: String
    ) -> ResolvedNavigation? {
        let isCollection = target.hasPrefix("Collection(") && target.hasSuffix(")")
        let targetType = isCollection ? String(target.dropFirst(11).dropLast()) : target
        if navigation.containsTarget {
            // Its targets live inside the entity: their set is named by the path (`Person/Trips`).
            let contained = sourceSet + "/" + navigation.name
            guard containedSets[Containment.template(of: contained)] != nil else { return nil }
            return ResolvedNavigation(
                name: navigation.name, sourceSet: sourceSet, targetSet: contained, targetType: targetType,
                multiplicity: isCollection ? .many : navigation.isNullable ? .zeroOrOne : .one, isContained: true)
        }
        var targetSet = set.navigationBindings[navigation.name]
        if targetSet == nil {
            // A binding may name the path through a type cast: `NS.Derived/Nav`.
            targetSet = set.navigationBindings.first { $0.key.hasSuffix("/" + navigation.name) }?.value
        }
        if targetSet == nil, set.containment != nil {
            // A contained entity's navigations are bound on the set at the top of its path: `Options/Car` on `Car`.
            let path = Containment.template(of: set.name).split(separator: "/").map(String.init)
            if let root = path.first.flatMap({ entitySet(named: $0) }) {
                targetSet = root.navigationBindings[(path.dropFirst() + [navigation.name]).joined(separator: "/")]
            }
        }
        if targetSet == nil {
            let container =
                containers.first { $0.entitySets.contains { $0.name == set.name } }
                ?? (set.containment != nil ? defaultContainer : nil)
            let candidates = (container?.entitySets ?? []).filter { $0.entityType == targetType }
            if candidates.count == 1 { targetSet = candidates[0].name }
        }
        guard let targetSet, entitySet(named: targetSet) != nil else { return nil }
        let multiplicity: Multiplicity = isCollection ? .many : navigation.isNullable ? .zeroOrOne : .one
        return ResolvedNavigation(
            name: navigation.name, sourceSet: set.name, targetSet: targetSet, targetType: targetType,
            multiplicity: multiplicity)
    }
}

/// A navigation property resolved to where it leads.
public struct ResolvedNavigation: Sendable, Hashable {
    public var name: String
    public var sourceSet: String
    public var targetSet: String
    /// Qualified name of the target entity type.
    public var targetType: String
    public var multiplicity: Multiplicity
    /// v4 `ContainsTarget`: the targets live inside the source entity, and ``targetSet`` names them by its path
    /// (`Person/Trips`; the targets of one person are `Person(1)/Trips`, see ``Containment``).
    public var isContained = false
    /// The type derived from the source set's that declares it (qualified), when the set's own type does not: it is
    /// addressed through a cast to that type (`Staff(3)/NS.Mechanic/Tools`).
    public var declaringType: String?

    /// Whether the navigation yields a list (`*`).
    public var isCollection: Bool { multiplicity == .many }
}
