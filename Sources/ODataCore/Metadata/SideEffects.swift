/// `Common.SideEffects` of an action (issue 36): what invoking it may change besides what it answers, so a client
/// reads those again once the service has run it.
///
/// The vocabulary addresses an action's targets through its binding parameter (`car/PersonCar`; in v2, where a
/// function import marked `sap:action-for` has none, through `_it`). The model keeps them relative to the bound
/// entity, that prefix taken off: `PersonCar/PersonCarMaintenance` is the relation to read again, `""` the entity
/// itself.
public struct SideEffects: Sendable, Hashable {
    /// Navigation paths from the bound entity whose entities the action may change (`""`: the entity itself).
    public var targetEntities: [String] = []
    /// Property paths of the bound entity the action may change.
    public var targetProperties: [String] = []
    /// Of an entity type's side effects (issue 36): the properties, and navigation paths, whose change in a draft
    /// makes the service change the targets.
    public var sourceProperties: [String] = []
    public var sourceEntities: [String] = []

    /// At most this many paths of each kind are kept, of at most ``maximumSegments`` segments each.
    public static let maximumPaths = 32
    public static let maximumSegments = 8

    public init(targetEntities: [String] = [], targetProperties: [String] = []) {
        self.targetEntities = targetEntities
        self.targetProperties = targetProperties
    }

    /// Both kinds of target, `other`'s after these (a second qualified annotation adds to the first).
    public func merged(with other: SideEffects) -> SideEffects {
        func union(_ first: [String], _ second: [String]) -> [String] {
            Array((first + second.filter { !first.contains($0) }).prefix(Self.maximumPaths))
        }
        var merged = SideEffects(
            targetEntities: union(targetEntities, other.targetEntities),
            targetProperties: union(targetProperties, other.targetProperties))
        merged.sourceProperties = union(sourceProperties, other.sourceProperties)
        merged.sourceEntities = union(sourceEntities, other.sourceEntities)
        return merged
    }

    /// Whether these are a field's side effects: they name what, changed, sets them off.
    public var hasSources: Bool { !sourceProperties.isEmpty || !sourceEntities.isEmpty }

    /// The paths with `binding` (the binding parameter's name, or v2's `_it`) taken off their front; a path that
    /// does not start with it is kept as it is.
    public func relative(to binding: String?) -> SideEffects {
        guard let binding, !binding.isEmpty else { return self }
        func strip(_ path: String) -> String {
            if path == binding { return "" }
            return path.hasPrefix(binding + "/") ? String(path.dropFirst(binding.count + 1)) : path
        }
        return SideEffects(
            targetEntities: targetEntities.map(strip), targetProperties: targetProperties.map(strip))
    }

    /// The navigation segments of each entity target, the entity itself (`""`) and absolute paths left out: the
    /// relations to read again, each a path of navigation names from the bound entity.
    public var navigationPaths: [[String]] {
        targetEntities.compactMap { path in
            let segments = path.split(separator: "/").map(String.init)
            return segments.isEmpty || path.hasPrefix("/") ? nil : segments
        }
    }

    /// The absolute entity targets (`/Container/Set`, `/NS.Container/Set`, `/Set`, each maybe followed by
    /// navigations), as the entity set they start from (the first of the path's first two segments that `isSet`
    /// knows) and the navigations after it: an action on the service, which has no row to start from, names what
    /// it changes so, and so may any action. The lists of the set the navigations reach are read again.
    public func absoluteTargets(known isSet: (String) -> Bool) -> [(set: String, navigation: [String])] {
        var targets: [(set: String, navigation: [String])] = []
        for path in targetEntities where path.hasPrefix("/") {
            let segments = path.split(separator: "/").map(String.init)
            guard let start = segments.prefix(2).firstIndex(where: isSet) else { continue }
            let target = (set: segments[start], navigation: Array(segments[(start + 1)...]))
            if !targets.contains(where: { $0.set == target.set && $0.navigation == target.navigation }) {
                targets.append(target)
            }
        }
        return targets
    }
}

extension ServiceModel {
    /// What the service changes when `changed`, properties of an entity of `set`, change in its draft: the targets
    /// of each of its type's side effects whose sources name one of them (a source path's first segment), merged;
    /// nil when none does.
    public func sideEffects(ofSet set: String, changing changed: [String]) -> SideEffects? {
        guard let type = entityType(ofSet: set), !type.sideEffects.isEmpty else { return nil }
        let names = Set(changed)
        var found: SideEffects?
        for effects in type.sideEffects {
            let sources = effects.sourceProperties.map { $0.split(separator: "/").first.map(String.init) ?? $0 }
            guard sources.contains(where: names.contains) else { continue }
            var targets = SideEffects(
                targetEntities: effects.targetEntities, targetProperties: effects.targetProperties)
            targets = found.map { $0.merged(with: targets) } ?? targets
            found = targets
        }
        return found
    }
}
