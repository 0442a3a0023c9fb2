import Foundation

/// A v4 `Edm.Geography*` or `Edm.Geometry*` value (issue 37), as JSON carries it (GeoJSON: `{"type": "Point",
/// "coordinates": [longitude, latitude]}`): a point's place, or another shape's kind and how many points it has.
/// Read from the decoded value, whatever type the property declares: a value that is not GeoJSON-shaped is none.
public enum GeoShape: Sendable, Hashable {
    case point(latitude: Double, longitude: Double)
    /// `LineString`, `Polygon`, `MultiPoint`, …, `GeometryCollection`, with the positions they hold.
    case shape(kind: String, points: Int)

    static let kinds: Set<String> = [
        "Point", "LineString", "Polygon", "MultiPoint", "MultiLineString", "MultiPolygon", "GeometryCollection",
    ]

    /// The most positions counted in one value (a shape of millions is counted this far, then said to be more).
    public static let countLimit = 100_000

    public init?(_ value: ODataValue) {
        guard case .complex(let members) = value,
            case .string(let kind)? = members.first(where: { $0.name == "type" })?.value, Self.kinds.contains(kind)
        else { return nil }
        if kind == "GeometryCollection" {
            guard case .collection(let parts)? = members.first(where: { $0.name == "geometries" })?.value else {
                return nil
            }
            var points = 0
            for part in parts where points < Self.countLimit {
                switch GeoShape(part) {
                case .point?: points += 1
                case .shape(_, let inner)?: points += inner
                case nil: continue
                }
            }
            self = .shape(kind: kind, points: min(points, Self.countLimit))
            return
        }
        guard let coordinates = members.first(where: { $0.name == "coordinates" })?.value else { return nil }
        if kind == "Point" {
            guard case .collection(let position) = coordinates, position.count >= 2,
                let longitude = Self.number(position[0]), let latitude = Self.number(position[1]),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { return nil }
            self = .point(latitude: latitude, longitude: longitude)
            return
        }
        var budget = Self.countLimit
        self = .shape(kind: kind, points: Self.positions(in: coordinates, depth: 0, budget: &budget))
    }

    /// Positions in nested arrays of coordinates (a position is an array of numbers), at most `budget`.
    static func positions(in value: ODataValue, depth: Int, budget: inout Int) -> Int {
        guard depth < 8, budget > 0, case .collection(let items) = value else { return 0 }
        if let first = items.first, number(first) != nil {
            budget -= 1
            return 1
        }
        var count = 0
        for item in items where budget > 0 { count += positions(in: item, depth: depth + 1, budget: &budget) }
        return count
    }

    /// A coordinate: a finite number of any kind (``ODataValue/number``).
    static func number(_ value: ODataValue) -> Double? {
        value.number.flatMap { $0.isFinite ? $0 : nil }
    }

    /// `47.6097° N, 122.3331° W`; `LineString, 12 points`.
    public var description: String {
        switch self {
        case .point(let latitude, let longitude):
            return String(
                format: "%.4f° %@, %.4f° %@", abs(latitude), latitude < 0 ? "S" : "N", abs(longitude),
                longitude < 0 ? "W" : "E")
        case .shape(let kind, let points):
            let count = points >= Self.countLimit ? "more than \(Self.countLimit - 1)" : String(points)
            return "\(kind), \(count) point\(points == 1 ? "" : "s")"
        }
    }
}
