import Foundation
import ODataCore
import Testing

/// Media entities and stream properties (issue 37): what a payload says of a stream is kept beside the entity's
/// values under v4's names, whichever dialect said it, and the stream is read where the service says, else by
/// convention.
@Suite struct MediaStreamTests {
    static let version4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:DataServices>
            <Schema Namespace="Album" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Photo" HasStream="true">
                <Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="caption" Type="Edm.String"/>
                <Property Name="thumbnail" Type="Edm.Stream"/>
              </EntityType>
              <EntityContainer Name="Container">
                <EntitySet Name="Photos" EntityType="Album.Photo"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let model: ServiceModel = {
        do { return try EDMXParser.parse(Array(version4.utf8)) } catch { fatalError("\(error)") }
    }()

    func entity(_ json: String, model: ServiceModel? = Self.model) throws -> ODataEntity {
        let decoder = PayloadDecoder(serviceRoot: "http://host/album/", model: model)
        guard case .entity(let entity) = try decoder.decode(Array(json.utf8), entitySet: "Photos") else {
            throw ODataError(kind: .malformedPayload, message: "not an entity")
        }
        return entity
    }

    @Test func a_version4_entity_keeps_what_it_says_of_its_streams_and_nothing_else_it_annotates() throws {
        let photo = try entity(
            #"""
            {"@odata.context":"http://host/album/$metadata#Photos/$entity","@odata.etag":"W/\"1\"",
             "@odata.mediaContentType":"image/png","@odata.mediaReadLink":"Photos(1)/$value","@odata.mediaEtag":"W/\"m1\"",
             "id":1,"caption":"Front","caption@Core.Description":"not kept",
             "thumbnail@mediaReadLink":"http://host/album/Photos(1)/thumbnail","thumbnail@mediaContentType":"image/jpeg",
             "@odata.editLink":"Photos(1)","@Org.Example.media":"not kept","x@odata.mediaReadLinkage":"not kept"}
            """#)
        #expect(photo.key?.canonical == "Photos(1)" && photo["caption"] == .string("Front"))
        #expect(
            MediaStream.described(in: photo.properties)
                == MediaStream(contentType: "image/png", readLink: "Photos(1)/$value", etag: #"W/"m1""#))
        #expect(
            MediaStream.described(in: photo.properties, property: "thumbnail")
                == MediaStream(
                    property: "thumbnail", contentType: "image/jpeg",
                    readLink: "http://host/album/Photos(1)/thumbnail"))
        #expect(
            photo.properties.filter(\.isInstanceAnnotation).map(\.name).sorted() == [
                "@odata.mediaContentType", "@odata.mediaEtag", "@odata.mediaReadLink",
                "thumbnail@odata.mediaContentType", "thumbnail@odata.mediaReadLink",
            ])
        // An entity that says nothing of a stream has none described.
        let plain = try entity(#"{"@odata.context":"http://host/album/$metadata#Photos/$entity","id":2}"#)
        #expect(MediaStream.described(in: plain.properties) == nil && plain.properties.count == 1)
    }

    @Test func a_version2_media_entity_says_it_in_its_metadata_under_the_same_names() throws {
        let decoder = PayloadDecoder(serviceRoot: "http://host/album/")
        let body = #"""
            {"d":{"__metadata":{"uri":"http://host/album/Photos(3)","type":"Album.Photo","etag":"W/\"2\"",
              "media_src":"http://host/album/Photos(3)/$value","content_type":"image/gif",
              "edit_media":"http://host/album/Photos(3)/$value","media_etag":"W/\"m3\""},
             "id":3,"caption":"Back"}}
            """#
        guard case .entity(let photo) = try decoder.decode(Array(body.utf8), entitySet: "Photos") else {
            Issue.record("not an entity")
            return
        }
        #expect(photo.key?.canonical == "Photos(3)" && photo.metadata.etag == #"W/"2""#)
        #expect(
            MediaStream.described(in: photo.properties)
                == MediaStream(
                    contentType: "image/gif", readLink: "http://host/album/Photos(3)/$value", etag: #"W/"m3""#))
    }

    @Test func the_stream_is_read_where_the_service_says_else_by_convention() {
        let root = "http://host/album/"
        let entityURL = root + "Photos(1)"
        #expect(MediaStream().url(entityURL: entityURL, serviceRoot: root) == root + "Photos(1)/$value")
        #expect(
            MediaStream(property: "thumbnail").url(entityURL: entityURL, serviceRoot: root)
                == root + "Photos(1)/thumbnail")
        #expect(
            MediaStream(readLink: "Photos(1)/$value?size=big").url(entityURL: entityURL, serviceRoot: root)
                == root + "Photos(1)/$value?size=big")
        #expect(
            MediaStream(readLink: "https://cdn.example/p.png").url(entityURL: entityURL, serviceRoot: root)
                == "https://cdn.example/p.png")
        // (a service's query options on the entity's URL stay at the end)
        #expect(
            MediaStream().url(entityURL: entityURL + "?sap-client=100", serviceRoot: root)
                == root + "Photos(1)/$value?sap-client=100")
    }

    @Test func only_plain_names_and_the_three_stream_terms_are_kept() {
        #expect(MediaStream.keptName("@odata.mediaReadLink") == "@odata.mediaReadLink")
        #expect(MediaStream.keptName("@mediaEtag") == "@odata.mediaEtag")
        #expect(MediaStream.keptName("photo@mediaContentType") == "photo@odata.mediaContentType")
        #expect(MediaStream.keptName("@odata.etag") == nil)
        #expect(MediaStream.keptName("a/b@odata.mediaReadLink") == nil)
        #expect(MediaStream.keptName("@odata.mediaReadLinks") == nil)
        #expect(MediaStream.keptName("caption") == nil)
    }
}
