import EntityCache
import ODataCore
import ScreenSeam

/// `--open 'Person(7)/PersonCar'`: the screens a resource path names, opened with the stack behind them, so that
/// Esc walks back as if the user had drilled there. A service that takes keys as segments may be given them so
/// (`Car/3/Owners`).
///
/// A key opens that entity (its details when the path ends there); a navigation from it opens its related list,
/// through the link entities the display profile hops (`Person(7)/PersonCar` is Bob's cars, as Enter on him
/// shows them; `Person(7)/PersonCar/Car` says the same).
public struct DeepLink: Sendable, Equatable {
    enum Step: Sendable, Equatable {
        case list(set: String)
        case related(parent: EntityKey, path: [String], title: String)
        case detail(EntityKey)
    }

    let steps: [Step]

    /// The screens `text` names in `model`, or a sentence saying why it names none.
    public static func resolve(
        _ text: String, model: ServiceModel, profile: DisplayProfile
    ) -> Result<
        DeepLink, DeepLinkError
    > {
        guard let path = ResourcePath.parse(relative: text) else {
            return .failure(DeepLinkError("'\(text)' is not a path like Person(7) or Person(7)/PersonCar."))
        }
        let segments = path.segments
        guard var set = model.entitySet(named: segments[0].name)?.name else {
            let names = model.entitySets.map(\.name).prefix(12).joined(separator: ", ")
            return .failure(DeepLinkError("The service has no entity set '\(segments[0].name)'; it has \(names)."))
        }
        // A singleton names its one entity alone (`Me`, `Me/Trips(2)`): no list before it, no key after it.
        let isSingleton = model.entitySet(named: set)?.isSingleton == true
        if isSingleton, segments[0].key != nil {
            return .failure(
                DeepLinkError("\(set) is a singleton, named without a key: write \(set) or \(set)/NAVIGATION."))
        }
        var steps: [Step] = set == profile.root || isSingleton ? [] : [.list(set: set)]
        var key =
            isSingleton ? EntityKey(singleton: set) : segments[0].key.map { EntityKey(entitySet: set, values: $0) }
        var index = 1
        while index < segments.count {
            let name = segments[index].name
            // A service that takes keys as segments names an entity so too (`Car/3`, `People/russell`): a segment
            // after a set, with no key, that is not one of its navigations.
            if key == nil, segments[index].key == nil, model.keyAsSegment,
                model.resolveNavigation(name, fromSet: set) == nil,
                let segmentKey = model.keyAsSegmentKey(set + "/" + PercentEncoding.encodePathSegment(name))
            {
                key = segmentKey
                index += 1
                continue
            }
            guard let parent = key else {
                return .failure(
                    DeepLinkError("'\(name)' follows \(set) without a key: write \(set)(KEY)/\(name)."))
            }
            guard let navigation = model.resolveNavigation(name, fromSet: set) else {
                return .failure(DeepLinkError("\(set) has no navigation '\(name)'."))
            }
            var hops = [name]
            // (contained entities are in the set their container's path names: `Car(2)/Options`)
            var target = navigation.isContained ? parent.canonical + "/" + name : navigation.targetSet
            var title = profile.set(named: target)?.title ?? name
            if let drill = profile.set(named: set)?.drill, drill.path.first == name {
                // The profile's drill: hop through the link entities, consuming them where the path spells them.
                hops = drill.path
                for hop in drill.path.dropFirst() {
                    guard let next = model.resolveNavigation(hop, fromSet: target) else { break }
                    target = next.targetSet
                    if index + 1 < segments.count, segments[index].key == nil, segments[index + 1].name == hop {
                        index += 1
                    }
                }
                title = drill.title ?? hops.last ?? name
            }
            steps.append(.related(parent: parent, path: hops, title: title))
            set = target
            key = segments[index].key.map { EntityKey(entitySet: set, values: $0) }
            index += 1
        }
        if let key { steps.append(.detail(key)) }
        return .success(DeepLink(steps: steps))
    }

    /// The controllers, bottom first, to push over the root.
    @MainActor
    func controllers(in environment: BrowserEnvironment) -> [any ScreenController] {
        func label(_ key: EntityKey) -> String {
            (try? environment.cache.entity(key)).flatMap { $0 }.map(environment.label(of:)) ?? key.canonical
        }
        return steps.map { step -> any ScreenController in
            switch step {
            case .list(let set):
                return EntityListController(environment: environment, entitySet: set)
            case .related(let parent, let path, let title):
                return EntityListController(
                    environment: environment, source: .related(parent: parent, path: path), breadcrumb: label(parent),
                    kindTitle: title, crumbEntity: parent)
            case .detail(let key):
                return EntityDetailController(environment: environment, key: key, breadcrumb: label(key))
            }
        }
    }
}

/// Why a deep link names no screen, in a sentence.
public struct DeepLinkError: Error, CustomStringConvertible, Sendable, Equatable {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension BrowserApp {
    /// Opens `link`'s screens over the root, as if drilled to.
    public func open(_ link: DeepLink) {
        for controller in link.controllers(in: environment) { stack.push(controller) }
        setNeedsDisplay()
    }
}
