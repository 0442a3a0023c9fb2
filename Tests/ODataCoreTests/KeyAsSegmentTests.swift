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
            // A string that would read as the collection, a system resource or a type cast: in parentheses
            for (key, url) in [("", "People('')"), ("$each", "People('$each')"), ("W.Person", "People('W.Person')")] {
                #expect(
                    urls.url(ResourcePath(EntityKey(entitySet: "People", value: .string(key)))) == "http://w.test/"
                        + url)
            }
        }
    }

    @Test func an_undeclared_or_v2_service_gets_parentheses() throws {
        let plain = ODataURLBuilder(serviceRoot: "http://w.test/", model: try Self.model(inline: true, declared: false))
        #expect(plain.url(ResourcePath(Self.person)) == "http://w.test/People('russell%2Fwhyte''s')")
        let v2 = try Self.model(inline: true, version: "1.0")
        #expect(!v2.keyAsSegment)
    }

    @Test func an_address_in_key_segment_form_names_its_entity() throws {
        let model = try Self.model(inline: true)
        #expect(
            model.keyAsSegmentKey("http://w.test/People/russell%2Fwhyte")
                == EntityKey(
                    entitySet: "People", value: .string("russell/whyte")))
        // (a key of several properties, a set the service lacks, or no key: none)
        for uri in ["http://w.test/Seats/3", "http://w.test/Nobody/3", "http://w.test/People"] {
            #expect(model.keyAsSegmentKey(uri) == nil, "\(uri)")
        }
        #expect(try Self.model(inline: true, declared: false).keyAsSegmentKey("http://w.test/People/x") == nil)
        // A delta answer's removed entity named so is read, not refused as malformed
        let delta =
            ##"{"@odata.context":"$metadata#People/$delta","value":[{"@removed":{},"@id":"People/kristakemp"}]}"##
        let decoder = PayloadDecoder(serviceRoot: "http://w.test/", model: model)
        guard case .collection(let page) = try decoder.decode(Array(delta.utf8), entitySet: "People") else {
            Issue.record("not a list")
            return
        }
        #expect(page.removed == [EntityKey(entitySet: "People", value: .string("kristakemp"))])
    }
}
