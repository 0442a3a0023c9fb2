/// Hints from the display profile that `$metadata` cannot give (the Browser's `DisplayProfile` is the source).
///
/// `hops` names, per link entity set, the navigation a screen hops through to
/// reach what the user wants to see: `["PersonCar": "Car"]` makes a person's
/// "cars" screen list `Car`s via `PersonCar` rows. An empty string means "do not
/// hop from this set", overriding the heuristic.
public struct PrefetchHints: Sendable, Hashable {
    public var hops: [String: String]

    public init(hops: [String: String] = [:]) {
        self.hops = hops
    }
}
