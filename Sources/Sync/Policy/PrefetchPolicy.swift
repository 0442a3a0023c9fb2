import ODataCore

/// Decides what to `$expand`, from `$metadata` navigations (not from CarDealer names).
///
/// **The policy.**
/// 1. *A list shows a page* → fetch that page with `$expand` of the **next screen**:
///    every to-many navigation `N` of the list's entity set, continued through one
///    hop `N/H` when `N` leads to a link entity (`Person?$expand=PersonCar/Car`).
///    Drilling into any row on the page then needs no request.
/// 2. *The cursor rests on a row* → fetch its neighbours' next screens, and for the
///    row itself the **level after next**. When the screen names the row its next
///    screen's cursor lands on, that is the landing row's next screen alone
///    (`PersonCar(3)?$expand=PersonCarMaintenance/Maintenance`); otherwise the entity
///    with the next screen's expansions plus, for each link `N`, its own to-many
///    navigations `M` and their hops
///    (`Person(1)?$expand=PersonCar/Car,PersonCar/PersonCarMaintenance/Maintenance`).
/// 3. Skip what is fresh (the engine checks fetched-at before queueing) and drop
///    queued fetches that scrolled away or whose screen closed.
///
/// **Hops.** The display profile may name the hop for a link set. Otherwise a set
/// reached through `N` is a link when its type has exactly one to-one navigation
/// that does not lead back to where we came from: that navigation is the hop.
/// At most ``maxExpansions`` paths are expanded per request, to keep payloads small.
public struct PrefetchPolicy: Sendable {
    public let model: ServiceModel
    public let profile: PrefetchHints
    public var maxExpansions = 4

    public init(model: ServiceModel, profile: PrefetchHints = PrefetchHints()) {
        self.model = model
        self.profile = profile
    }

    /// Navigations of a set, resolved, in declared order.
    func navigations(ofSet set: String) -> [ResolvedNavigation] {
        guard let type = model.entityType(ofSet: set) else { return [] }
        return model.navigationProperties(of: type).compactMap { model.resolveNavigation($0.name, fromSet: set) }
    }

    /// The hop from link set `link` that was reached from `source`, if any.
    public func hop(from link: String, arrivedFrom source: String) -> String? {
        if let named = profile.hops[link] { return named.isEmpty ? nil : named }
        let candidates = navigations(ofSet: link).filter { !$0.isCollection && $0.targetSet != source }
        return candidates.count == 1 ? candidates[0].name : nil
    }

    /// The screens one level down from an entity of `set`: `N` or `N/H` for each to-many `N`.
    public func nextScreenExpansions(forSet set: String) -> [String] {
        var result: [String] = []
        for navigation in navigations(ofSet: set) where navigation.isCollection {
            if let hop = hop(from: navigation.targetSet, arrivedFrom: set) {
                result.append(navigation.name + "/" + hop)
            } else {
                result.append(navigation.name)
            }
        }
        // (a draft's who and since when, where the set is edited through drafts: shown on the entity's screen)
        if let administration = model.draftAdministration(ofSet: set) {
            return Array(result.prefix(max(0, maxExpansions - 1))) + [administration]
        }
        return Array(result.prefix(maxExpansions))
    }

    /// The next screen and the level after it, for an entity of `set` the cursor rests on.
    public func restingExpansions(forSet set: String) -> [String] {
        var result = nextScreenExpansions(forSet: set)
        for navigation in navigations(ofSet: set) where navigation.isCollection {
            let link = navigation.targetSet
            for inner in navigations(ofSet: link) where inner.isCollection && inner.targetSet != set {
                var path = navigation.name + "/" + inner.name
                if let hop = hop(from: inner.targetSet, arrivedFrom: link) { path += "/" + hop }
                result.append(path)
            }
        }
        return Array(result.prefix(maxExpansions))
    }

    /// The expansions for a related screen `parent/path…`: the path itself, and the
    /// next screen of each row (the first segment's target, e.g. `PersonCar`).
    public func relatedExpansions(parentSet: String, path: [String]) -> [String] {
        guard let first = path.first else { return [] }
        var result = [path.joined(separator: "/")]
        if let link = model.resolveNavigation(first, fromSet: parentSet)?.targetSet {
            for next in nextScreenExpansions(forSet: link) where !next.hasPrefix(parentNavigationBack(link, parentSet))
            {
                result.append(first + "/" + next)
            }
        }
        return Array(result.prefix(maxExpansions))
    }

    /// What an answer expanding `expand` below an entity of `set` needs to carry: `$select` paths (v2 spelling,
    /// `PersonCar/Car/make`; empty when every entity comes whole) and the entity sets cut short in it, whose
    /// entities the cache merges rather than replaces.
    public struct Selection: Sendable, Hashable {
        public var paths: [String]
        /// Each set cut short, with the properties a whole entity of it carries (one that carries them all came
        /// whole anyway, from a service that ignored the cut).
        public var partialSets: [String: Set<String>]

        public init(paths: [String] = [], partialSets: [String: Set<String>] = [:]) {
            self.paths = paths
            self.partialSets = partialSets
        }
    }

    /// The `$select` of a prefetch: each expanded entity cut to its keys and what its list screens show (the
    /// profile's ``PrefetchHints/shown``), a link set the user hops through to its keys and label, any other set
    /// whole (every property by name). The root entity whole when `wholeRoot` (a list's own rows), else cut the same way (the row
    /// the cursor rests on, cached already). A set that also comes whole in the same answer is not cut.
    public func selection(forSet set: String, expand: [String], wholeRoot: Bool) -> Selection {
        // Each expanded path's prefixes, in order: "PersonCar", "PersonCar/Car", with their entity sets.
        var prefixes: [(path: String, set: String, isLink: Bool)] = []
        for path in expand {
            let names = path.split(separator: "/").map(String.init)
            var current = set
            for (index, name) in names.enumerated() {
                guard let navigation = model.resolveNavigation(name, fromSet: current) else { break }
                let prefix = names[...index].joined(separator: "/")
                // A link entity the screens hop through (`PersonCar` → `Car`): only its label is ever drawn.
                let isLink = hop(from: navigation.targetSet, arrivedFrom: current) != nil
                if let known = prefixes.firstIndex(where: { $0.path == prefix }) {
                    prefixes[known].isLink = prefixes[known].isLink && isLink
                } else {
                    prefixes.append((prefix, navigation.targetSet, isLink))
                }
                current = navigation.targetSet
            }
        }
        let rootCut = wholeRoot ? nil : cutFields(ofSet: set, isLink: false)
        var whole: Set<String> = rootCut == nil ? [set] : []
        var cuts: [String: [String]] = [:]
        for prefix in prefixes {
            if let fields = cutFields(ofSet: prefix.set, isLink: prefix.isLink) {
                cuts[prefix.path] = fields
            } else {
                whole.insert(prefix.set)
            }
        }
        var cutSets = Set(prefixes.filter { cuts[$0.path] != nil }.map(\.set))
        if rootCut != nil { cutSets.insert(set) }
        let partialSets = cutSets.subtracting(whole)
        guard !partialSets.isEmpty else { return Selection() }
        // v2: whole entities by name, not `*` (SAP Gateway refuses `*` beside paths). v4 selects per level, and a
        // level that names nothing comes whole (`A/*` says so, and is not sent).
        let v4 = model.dialect == .v4
        var paths: [String] = []
        if partialSets.contains(set), let rootCut {
            paths += rootCut
        } else if !v4 {
            paths += allFields(ofSet: set)
        }
        for prefix in prefixes {
            if partialSets.contains(prefix.set) {
                paths += (cuts[prefix.path] ?? []).map { prefix.path + "/" + $0 }
            } else {
                paths += v4 ? [prefix.path + "/*"] : allFields(ofSet: prefix.set).map { prefix.path + "/" + $0 }
            }
        }
        var declared: [String: Set<String>] = [:]
        for cut in partialSets { declared[cut] = Set(allFields(ofSet: cut)) }
        return Selection(paths: paths, partialSets: declared)
    }

    /// Every structural property `$metadata` declares for `set`.
    func allFields(ofSet set: String) -> [String] {
        model.entityType(ofSet: set).map { model.properties(of: $0).map(\.name) } ?? []
    }

    /// The keys and shown properties of `set` (only those `$metadata` declares); nil when it is fetched whole.
    func cutFields(ofSet set: String, isLink: Bool) -> [String]? {
        guard let type = model.entityType(ofSet: set) else { return nil }
        guard let named = profile.shown[set] ?? (isLink ? profile.labels[set] : nil) else { return nil }
        let declared = model.properties(of: type).map(\.name)
        var fields = model.keyProperties(of: type)
        for name in named where declared.contains(name) && !fields.contains(name) { fields.append(name) }
        return fields.count < declared.count ? fields : nil
    }

    /// The name of a to-many navigation of `set` leading back to `parentSet` (excluded from prefetch).
    func parentNavigationBack(_ set: String, _ parentSet: String) -> String {
        navigations(ofSet: set).first { $0.isCollection && $0.targetSet == parentSet }.map { $0.name + "/" } ?? "\u{0}"
    }

    /// The entity set a collection path lists (`Person(1)/PersonCar` → `PersonCar`; a type cast, `Staff/NS.Mechanic`,
    /// lists its set).
    public func entitySet(of path: ResourcePath) -> String? {
        model.entitySet(of: path)
    }
}
