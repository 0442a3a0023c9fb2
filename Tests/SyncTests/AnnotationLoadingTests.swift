import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Sync

/// Where a session's annotation documents come from (issue 33): the one its service document names (asked alongside
/// `$metadata` when the URL is written as a root, else once `$metadata` has answered) and, for a Gateway v2 root,
/// the SAP catalog's, kept with `$metadata` in the cache; and those `--annotations` names, asked alongside
/// `$metadata` at every start.
/// What cannot be had or read is a sentence, never a failed start.
@Suite struct AnnotationLoadingTests {
    static let root = "http://shop.test/sap/opu/odata/sap/SHOP/"
    static let annotationsURL = root + "annotations"

    static let serviceDocument = """
        <?xml version="1.0" encoding="utf-8"?><app:service xmlns:app="http://www.w3.org/2007/app"
          xmlns:atom="http://www.w3.org/2005/Atom">
          <atom:link rel="http://www.sap.com/Protocols/SAPData/annotations" href="\(annotationsURL)"/>
          <app:workspace/></app:service>
        """

    static func document(plural: String) -> String {
        """
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
          <Schema Namespace="SHOP.Annotations" xmlns="http://docs.oasis-open.org/odata/ns/edm">
            <Annotations Target="SHOP.Order">
              <Annotation Term="com.sap.vocabularies.UI.v1.HeaderInfo"><Record>
                <PropertyValue Property="TypeNamePlural" String="\(plural)"/>
              </Record></Annotation>
              <Annotation Term="com.sap.vocabularies.UI.v1.LineItem"><Collection>
                <Record><PropertyValue Property="Value" Path="Amount"/></Record>
                <Record><PropertyValue Property="Value" Path="OrderID"/></Record>
              </Collection></Annotation>
            </Annotations>
          </Schema></edmx:DataServices></edmx:Edmx>
        """
    }

    /// The service: `$metadata`, its service document, and the annotation document `annotations` gives (nil: 404).
    static func service(annotations: @escaping @Sendable () -> String?) -> FakeTransport {
        FakeTransport { request, _ in
            switch request.url {
            case root + "$metadata":
                return TransportResponse(status: 200, body: Array(UIAnnotationFixtures.version2.utf8))
            case root:
                return TransportResponse(status: 200, body: Array(serviceDocument.utf8))
            case annotationsURL:
                guard let body = annotations() else { return TransportResponse(status: 404, body: []) }
                return TransportResponse(status: 200, body: Array(body.utf8))
            default:
                return TransportResponse(status: 404, body: [])
            }
        }
    }

    static let refused = FakeTransport { request, _ in
        throw ODataError(kind: .transport, message: "the connection was refused", url: request.url)
    }

    @Test func the_document_a_service_advertises_is_merged_and_kept_for_an_offline_start() async throws {
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        // Given a v2 service whose service document names its annotation document
        let transport = Self.service { Self.document(plural: "Sales Orders") }
        let cold = try await MetadataLoader.open(root: Self.root, transport: transport) { _ in path }
        // Then the model holds what it says
        let order = try #require(cold.model.entityTypes["SHOP.Order"])
        #expect(order.ui.typeNamePlural == "Sales Orders")
        #expect(order.ui.lineItem?.map(\.path) == ["Amount", "OrderID"])
        #expect(cold.notes.isEmpty)
        // Each asked once: the service document alongside $metadata, then the document it names
        #expect(await transport.count(of: Self.root) == 1)
        #expect(await transport.count(of: Self.annotationsURL) == 1)
        // And a start with the service away shows the same screens from the cache
        let offline = try await MetadataLoader.open(root: Self.root, transport: Self.refused) { _ in path }
        #expect(offline.fromCache)
        #expect(offline.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Sales Orders")
    }

    @Test func a_warm_start_stores_the_current_document_for_the_next_start() async throws {
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        _ = try await MetadataLoader.open(root: Self.root, transport: Self.service { Self.document(plural: "Old") }) {
            _ in path
        }
        let warm = try await MetadataLoader.open(
            root: Self.root, transport: Self.service { Self.document(plural: "New") }
        ) { _ in path }
        #expect(warm.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Old")  // at once, from the cache
        #expect(
            try await eventually {
                try warm.cache.annotationDocuments().map(\.document) == [Array(Self.document(plural: "New").utf8)]
            })
    }

    @Test func a_warm_start_that_cannot_read_the_service_document_keeps_the_stored_annotations() async throws {
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        _ = try await MetadataLoader.open(root: Self.root, transport: Self.service { Self.document(plural: "Kept") }) {
            _ in path
        }
        // Given a service whose $metadata changed and whose service document now fails
        let changed = UIAnnotationFixtures.version2.replacingOccurrences(of: "Net Value", with: "Net")
        let failing = FakeTransport { request, _ in
            request.url == Self.root + "$metadata"
                ? TransportResponse(status: 200, body: Array(changed.utf8)) : TransportResponse(status: 503, body: [])
        }
        let warm = try await MetadataLoader.open(root: Self.root, transport: failing) { _ in path }
        // When the background refresh has stored the new $metadata
        #expect(try await eventually { try warm.cache.metadataDocument() == Array(changed.utf8) })
        // Then the annotation document stored before is still there for the next start
        #expect(try warm.cache.annotationDocuments().map(\.document) == [Array(Self.document(plural: "Kept").utf8)])
    }

    @Test(arguments: [
        ("<!doctype html><html><body>Log on</body></html>", "it is an HTML page, not EDMX"),
        (String(repeating: "<a>", count: 10_000), "passed over"),
        ("", "passed over"),
    ])
    func a_document_that_is_not_edmx_is_a_sentence_and_the_service_still_opens(
        body: String, says: String
    )
        async throws
    {
        let opened = try await MetadataLoader.open(root: Self.root, transport: Self.service { body }) { _ in nil }
        #expect(opened.model.entitySet(named: "OrderSet") != nil)
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.isEmpty == true)
        #expect(opened.notes.count == 1 && opened.notes[0].contains(says), "\(opened.notes)")
        #expect(opened.notes[0].contains(Self.annotationsURL))
    }

    @Test func a_document_the_service_does_not_have_is_a_sentence() async throws {
        let opened = try await MetadataLoader.open(root: Self.root, transport: Self.service { nil }) { _ in nil }
        #expect(
            opened.notes == [
                "The annotation document \(Self.annotationsURL) was not had (HTTP 404); it is passed over."
            ])
    }

    @Test func documents_named_by_the_user_come_after_the_services_and_a_missing_file_is_a_sentence() async throws {
        let file = try BuiltProducts.temporaryDirectory("annotations") + "/local.xml"
        try Self.document(plural: "Mine").write(toFile: file, atomically: true, encoding: .utf8)
        let opened = try await MetadataLoader.open(
            root: Self.root, transport: Self.service { Self.document(plural: "Theirs") },
            annotationSources: ["/nonexistent/annotations.xml", file]
        ) { _ in nil }
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Mine")
        #expect(opened.notes.count == 1 && opened.notes[0].contains("/nonexistent/annotations.xml"))
    }

    @Test func documents_named_by_the_user_are_asked_alongside_metadata_and_merged_in_the_order_given() async throws {
        let first = "http://docs.test/first.xml"
        let second = "http://docs.test/second.xml"
        let transport = FakeTransport { request, _ in
            switch request.url {
            case Self.root + "$metadata":
                return TransportResponse(status: 200, body: Array(UIAnnotationFixtures.version2.utf8))
            case Self.root: return TransportResponse(status: 200, body: Array("<app:service/>".utf8))
            case first: return TransportResponse(status: 200, body: Array(Self.document(plural: "First").utf8))
            case second: return TransportResponse(status: 200, body: Array(Self.document(plural: "Second").utf8))
            default: return TransportResponse(status: 404, body: [])
            }
        }
        // Given `$metadata` and the first document held: nothing answers until both documents have been asked
        await transport.hold { $0.url == Self.root + "$metadata" || $0.url == first }
        let opening = Task {
            try await MetadataLoader.open(root: Self.root, transport: transport, annotationSources: [first, second]) {
                _ in nil
            }
        }
        #expect(
            try await eventually {
                let waiting = await transport.waitingCount
                let asked = await transport.count(of: second)
                return waiting == 2 && asked == 1
            })
        await transport.release()
        let opened = try await opening.value
        // Then the second, answered first, still overrides the first, as given
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Second")
        #expect(opened.notes.isEmpty, "\(opened.notes)")
    }

    @Test func the_service_document_is_asked_alongside_metadata_when_the_root_is_written_as_one() async throws {
        let transport = Self.service { Self.document(plural: "Sales Orders") }
        // Given `$metadata` held
        await transport.hold { $0.url == Self.root + "$metadata" }
        let opening = Task { try await MetadataLoader.open(root: Self.root, transport: transport) { _ in nil } }
        // Then the service document is asked while `$metadata` has not answered
        #expect(
            try await eventually {
                let waiting = await transport.waitingCount
                let asked = await transport.count(of: Self.root)
                return waiting == 1 && asked == 1
            })
        await transport.release()
        let opened = try await opening.value
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Sales Orders")
        #expect(await transport.count(of: Self.root) == 1)
    }

    @Test func a_url_written_without_its_trailing_slash_asks_the_service_document_after_metadata() async throws {
        let transport = Self.service { Self.document(plural: "Sales Orders") }
        await transport.hold { $0.url == Self.root + "$metadata" }
        // Given a URL that could name an entity set (no trailing slash)
        let opening = Task {
            try await MetadataLoader.open(root: String(Self.root.dropLast()), transport: transport) { _ in nil }
        }
        #expect(try await eventually { await transport.waitingCount == 1 })
        // Then nothing is read from it while `$metadata` has not answered (it might be a whole list)
        try await Task.sleep(for: .milliseconds(200))
        #expect(await transport.count(of: Self.root) == 0)
        await transport.release()
        let opened = try await opening.value
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "Sales Orders")
        #expect(await transport.count(of: Self.root) == 1)
    }

    static let catalogURL =
        "http://shop.test/sap/opu/odata/IWFND/CATALOGSERVICE;v=2/Annotations(TechnicalName='SHOP_VAN',"
        + "Version='0001')/$value"

    @Test func the_sap_catalogs_document_is_merged_before_the_service_documents() async throws {
        let transport = FakeTransport { request, _ in
            switch request.url {
            case Self.root + "$metadata":
                return TransportResponse(status: 200, body: Array(UIAnnotationFixtures.version2.utf8))
            case Self.root: return TransportResponse(status: 200, body: Array(Self.serviceDocument.utf8))
            case Self.catalogURL:
                return TransportResponse(status: 200, body: Array(Self.document(plural: "From the catalog").utf8))
            default: return TransportResponse(status: 404, body: [])
            }
        }
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        let opened = try await MetadataLoader.open(root: Self.root, transport: transport) { _ in path }
        #expect(opened.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == "From the catalog")
        // (the service document's link answered 404: a sentence; the catalog's document is kept for the next start)
        #expect(opened.notes.count == 1, "\(opened.notes)")
        #expect(try opened.cache.annotationDocuments().map(\.source) == [Self.catalogURL])
        #expect(try !opened.cache.serviceFacts().contains(.catalogHasNoAnnotations))
    }

    @Test func a_catalog_without_a_document_for_the_service_is_not_asked_again() async throws {
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        let transport = Self.service { Self.document(plural: "Sales Orders") }
        // Given a cold start: the catalog asked once, answering 404
        let cold = try await MetadataLoader.open(root: Self.root, transport: transport) { _ in path }
        #expect(await transport.count(of: Self.catalogURL) == 1)
        #expect(try cold.cache.serviceFacts().contains(.catalogHasNoAnnotations))
        #expect(cold.notes.isEmpty, "\(cold.notes)")
        // When a warm start's refresh has read the service document and its annotation document again
        _ = try await MetadataLoader.open(root: Self.root, transport: transport) { _ in path }
        #expect(try await eventually { await transport.count(of: Self.annotationsURL) == 2 })
        // Then the catalog was not asked again
        #expect(await transport.count(of: Self.catalogURL) == 1)
    }

    @Test func no_annotation_documents_reads_none_and_keeps_those_stored() async throws {
        let path = try BuiltProducts.temporaryDirectory("annotations") + "/cache.sqlite"
        let transport = Self.service { Self.document(plural: "Sales Orders") }
        _ = try await MetadataLoader.open(root: Self.root, transport: transport) { _ in path }
        let plain = try await MetadataLoader.open(root: Self.root, transport: transport, serviceDocument: false) {
            _ in path
        }
        #expect(plain.model.entityTypes["SHOP.Order"]?.ui.typeNamePlural == nil)
        #expect(try await eventually { await transport.count(of: Self.root + "$metadata") == 2 })
        #expect(await transport.count(of: Self.root) == 1)
        #expect(try plain.cache.annotationDocuments().count == 1)
    }
}

/// The v2 `$metadata` the annotation tests describe.
enum UIAnnotationFixtures {
    static let version2 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx"
            xmlns:sap="http://www.sap.com/Protocols/SAPData">
          <edmx:DataServices m:DataServiceVersion="2.0"
              xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
            <Schema Namespace="SHOP" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
              <EntityType Name="Order">
                <Key><PropertyRef Name="OrderID"/></Key>
                <Property Name="OrderID" Type="Edm.String" Nullable="false" sap:label="Order"/>
                <Property Name="Amount" Type="Edm.Decimal" Precision="16" Scale="3" sap:label="Net Value"/>
              </EntityType>
              <EntityContainer Name="SHOP_Entities" m:IsDefaultEntityContainer="true">
                <EntitySet Name="OrderSet" EntityType="SHOP.Order"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """
}
