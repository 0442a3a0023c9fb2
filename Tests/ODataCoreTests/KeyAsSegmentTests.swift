import Testing

@testable import ODataCore

/// Keys as segments (issue 37): a v4 service whose container declares `Capabilities.KeyAsSegmentSupported` gets
/// `Staff/3`, a string key unquoted and percent-encoded as a segment; a key of several properties keeps its
/// parentheses; v2, or a service that does not declare it, gets parentheses.
@Suite struct KeyAsSegmentTests {
    static func model(inline: Bool, declared: Bool = true, version: String = "4.0") throws -> ServiceModel {
        let annotation = #"<Annotation Term="Org.OData.Capabilities.V1.KeyAsSegmentSupported"/>"#
        let outside = #"<Annotations Target="W.C">\#(annotation)</Annotations>"#
        return try EDMXParser.parse(
            Array(
                """
                <edmx:Edmx Version="\(version)" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
                <edmx:DataServices><Schema Namespace="W" xmlns="http://docs.oasis-open.org/odata/ns/edm">
                <EntityType Name="Person"><Key><PropertyRef Name="userName"/></Key>
                  <Property Name="userName" Type="Edm.String" Nullable="false"/></EntityType>
                <EntityType Name="Seat"><Key><PropertyRef Name="row"/><PropertyRef Name="seat"/></Key>
                  <Property Name="row" Type="Edm.Int32" Nullable="false"/>
                  <Property Name="seat" Type="Edm.Int32" Nullable="false"/></EntityType>
                <EntityContainer Name="C"><EntitySet Name="People" EntityType="W.Person"/>
                  <EntitySet Name="Seats" EntityType="W.Seat"/>\(declared && inline ? annotation : "")</EntityContainer>
                \(declared && !inline ? outside : "")
                </Schema></edmx:DataServices></edmx:Edmx>
                """.utf8))
    }

    static let person = EntityKey(entitySet: "People", value: .string("russell/whyte's"))
    static let seat = EntityKey(
        entitySet: "Seats", values: [.init(name: "row", value: .int(3)), .init(name: "seat", value: .int(7))])

    @Test func a_declared_service_gets_keys_as_segments_and_a_composite_key_in_parentheses() throws {
        for inline in [true, false] {
            let model = try Self.model(inline: inline)
            #expect(model.keyAsSegment)
            let urls = ODataURLBuilder(serviceRoot: "http://w.test/", model: model)
            #expect(
                urls.url(ResourcePath(Self.person).appending("Trips"))
                    == "http://w.test/People/russell%2Fwhyte%27s/Trips")
            #expect(urls.url(ResourcePath(Self.seat)) == "http://w.test/Seats(row=3,seat=7)")
        }
    }

    @Test func an_undeclared_or_v2_service_gets_parentheses() throws {
        let plain = ODataURLBuilder(serviceRoot: "http://w.test/", model: try Self.model(inline: true, declared: false))
        #expect(plain.url(ResourcePath(Self.person)) == "http://w.test/People('russell%2Fwhyte''s')")
        let v2 = try Self.model(inline: true, version: "1.0")
        #expect(!v2.keyAsSegment)
    }
}
