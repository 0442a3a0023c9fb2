/// Hints from the display profile that `$metadata` cannot give (the Browser's `DisplayProfile` is the source).
///
/// `hops` names, per link entity set, the navigation a screen hops through to
/// reach what the user wants to see: `["PersonCar": "Car"]` makes a person's
/// "cars" screen list `Car`s via `PersonCar` rows. An empty string means "do not
/// hop from this set", overriding the heuristic.
///
/// `shown` names, per entity set, the properties its list screens show (label, columns, order, search, charts):
/// a prefetch of the next screen asks only for those (`$select`), and a detail screen fetches the rest when
/// opened. A set not named here is fetched whole. `labels` names the properties of a row's label, for link sets
/// the user hops through (only the label of one is ever drawn, in a breadcrumb).
public struct PrefetchHints: Sendable, Hashable {
    public var hops: [String: String]
    public var shown: [String: [String]]
    public var labels: [String: [String]]

    public init(hops: [String: String] = [:], shown: [String: [String]] = [:], labels: [String: [String]] = [:]) {
        self.hops = hops
        self.shown = shown
        self.labels = labels
    }

    /// The hops a profile's drill paths imply (`["PersonCar", "Car"]`: PersonCar hops to Car). A link set drilled
    /// through towards different targets (PersonCar → Car from a person, → Person from a car) is left to the
    /// fetcher's rule: hop along the navigation that does not lead back.
    public init(drillPaths: [[String]], shown: [String: [String]] = [:], labels: [String: [String]] = [:]) {
        var targets: [String: Set<String>] = [:]
        for path in drillPaths where path.count >= 2 {
            targets[path[0], default: []].insert(path[1])
        }
        self.init(hops: targets.compactMapValues { $0.count == 1 ? $0.first : nil }, shown: shown, labels: labels)
    }
}
