import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service describes its own screens (issue 33), served over a real socket: `UI.HeaderInfo`,
/// `UI.LineItem`, `Common.Label` and `Measures.ISOCurrency` inline in both `$metadata` documents, and the same
/// blocks in the v2 root's annotation document, so that any client (ours by URL included) shows the same screens.
struct SelfDescriptionTests {
    @Test func both_metadata_documents_and_the_annotation_document_describe_the_same_screens() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let version2 = try EDMXParser.parse(try await service.get("$metadata").body)
        let version4 = try EDMXParser.parse(
            try await service.get(service.server.version4URL + "$metadata").body)
        let document = try await service.get("annotations")
        #expect(document.status == 200)
        // The document, merged into the v2 model with its own annotations taken away, gives them back
        var bare = version2
        for name in bare.entityTypes.keys {
            bare.entityTypes[name]?.ui = UIAnnotations()
            bare.entityTypes[name]?.titleProperties = []
            for index in bare.entityTypes[name]?.properties.indices ?? 0..<0 {
                bare.entityTypes[name]?.properties[index].label = nil
                bare.entityTypes[name]?.properties[index].unit = nil
                bare.entityTypes[name]?.properties[index].valueList = nil
            }
        }
        let merged = try EDMXParser.merge(annotations: document.body, into: bare)
        for model in [version2, version4, merged] {
            let person = try #require(model.entityType(ofSet: "Person"))
            #expect(person.ui.typeNamePlural == "People")
            #expect(person.ui.lineItem?.map(\.path) == ["lastName", "firstName", "createDate"])
            #expect(person.ui.lineItem?.map(\.label) == ["Last name", "First name", "Customer since"])
            #expect(person.property(named: "ssn")?.label == "Social security number")
            let maintenance = try #require(model.entityType(ofSet: "Maintenance"))
            #expect(maintenance.property(named: "cost")?.unit == .currencyCode("USD"))
            // A car's make has value help: the makes, its name written back
            let make = try #require(model.entityType(ofSet: "Car")?.property(named: "make"))
            #expect(make.valueList?.collectionPath == "Make" && make.valueList?.label == "Makes")
            #expect(make.valueList?.outputs.map(\.from) == ["name"] && make.valueList?.outputs.map(\.local) == ["make"])
            #expect(!make.hasFixedValues)
            #expect(model.entitySet(named: "Make") != nil)
        }
        // And the makes are served, every make the demo's cars are drawn from
        let makes = try PayloadDecoder(serviceRoot: service.server.baseURL, dialect: .v2).decode(
            Array(try await service.get("Make?$orderby=makeID").body))
        guard case .collection(let listed) = makes else {
            Issue.record("the makes are not a collection: \(makes)")
            return
        }
        #expect(listed.entities.count == 15 && listed.entities.first?["name"] == .string("Ford"))
        #expect(merged.entityType(ofSet: "Car")?.titleProperties == ["make", "model"])
    }
}
