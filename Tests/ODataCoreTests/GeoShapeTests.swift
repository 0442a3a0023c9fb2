import ODataCore
import Testing

/// Geography and geometry values as GeoJSON brings them (issue 37): a point as a place, other shapes by kind and
/// number of points (counted only so far), anything else none.
@Suite struct GeoShapeTests {
    func geo(_ kind: String, _ coordinates: ODataValue) -> ODataValue {
        .complex([.init(name: "type", value: .string(kind)), .init(name: "coordinates", value: coordinates)])
    }

    func position(_ longitude: Double, _ latitude: Double) -> ODataValue {
        .collection([.double(longitude), .double(latitude)])
    }

    @Test func a_point_is_a_place_in_each_hemisphere() {
        #expect(GeoShape(geo("Point", position(-122.3331, 47.6097)))?.description == "47.6097° N, 122.3331° W")
        #expect(GeoShape(geo("Point", position(151.2093, -33.8688)))?.description == "33.8688° S, 151.2093° E")
        #expect(GeoShape(geo("Point", .collection([.int(10), .int(20)]))) == .point(latitude: 20, longitude: 10))
    }

    @Test func shapes_are_their_kind_and_points() {
        let line = geo("LineString", .collection([position(0, 0), position(1, 1), position(2, 2)]))
        #expect(GeoShape(line)?.description == "LineString, 3 points")
        let polygon = geo(
            "Polygon", .collection([.collection([position(0, 0), position(1, 0), position(1, 1), position(0, 0)])]))
        #expect(GeoShape(polygon) == .shape(kind: "Polygon", points: 4))
        let collection = ODataValue.complex([
            .init(name: "type", value: .string("GeometryCollection")),
            .init(name: "geometries", value: .collection([geo("Point", position(1, 2)), line])),
        ])
        #expect(GeoShape(collection) == .shape(kind: "GeometryCollection", points: 4))
    }

    @Test func a_huge_shape_is_counted_only_so_far_and_what_is_not_geojson_is_none() {
        let many = ODataValue.collection(Array(repeating: position(1, 1), count: GeoShape.countLimit + 5))
        #expect(GeoShape(geo("MultiPoint", many))?.description.hasPrefix("MultiPoint, more than") == true)
        #expect(GeoShape(geo("Point", position(0, 91))) == nil)  // no such latitude
        #expect(GeoShape(geo("Circle", position(0, 0))) == nil)
        #expect(GeoShape(.complex([.init(name: "street", value: .string("Main St"))])) == nil)
        #expect(GeoShape(.string("POINT(1 2)")) == nil)
    }
}
