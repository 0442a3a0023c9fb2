/// Navigation paths (`$expand`) or property paths (`$select`) folded into a tree, one level per segment.
///
/// `PersonCar,PersonCar/Car` becomes `PersonCar → Car`. For `$select`, a level's ``names`` are what it
/// keeps; a level that nothing selected keeps everything.
struct PathTree: Sendable {
    /// Names selected or expanded at this level, in first-seen order.
    var names: [String] = []
    var children: [String: PathTree] = [:]
    /// `*` was selected at this level.
    var all = false

    init() {}

    init(paths: [String]) {
        for path in paths { insert(path.split(separator: "/").map(String.init)) }
    }

    mutating func insert(_ segments: [String]) {
        guard let first = segments.first else { return }
        if first == "*" {
            all = true
            return
        }
        if !names.contains(first) { names.append(first) }
        if segments.count > 1 { children[first, default: PathTree()].insert(Array(segments.dropFirst())) }
    }

    /// The number of levels below this one.
    var depth: Int { children.values.map { $0.depth + 1 }.max() ?? (names.isEmpty ? 0 : 1) }

    var isEmpty: Bool { names.isEmpty && !all }
}
