import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// CSDL v4 as a server we did not write publishes it (issue 19): mock-sap's v4 services (SAP's A2X APIs, with
/// their vocabularies, bindings and annotations), read into the model the browser works from.
@Suite(.enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)"))
struct IndependentVersion4MetadataTests {
    static let services = ["api_salesorder", "api_product", "api_purchaseorder", "api_businesspartner"]

    @Test(arguments: services)
    func a_v4_metadata_is_read_and_every_bound_navigation_leads_to_a_set(service: String) async throws {
        let root = try #require(mockSAPRoot)
        let origin = root.components(separatedBy: "/sap/").first ?? root
        let url = origin + "/sap/opu/odata4/sap/\(service)/srvd_a2x/sap/\(service)/0001/$metadata"
        var request = TransportRequest(url: url)
        request.acceptsXML = true  // as the browser asks for it: a v4 service answers JSON CSDL to a JSON Accept
        let response = try await HTTPClientTransport(timeout: 10).send(request)
        #expect(response.status == 200)
        let model = try EDMXParser.parse(response.body)
        #expect(model.isVersion4, "\(service): EDMX \(model.edmxVersion ?? "without a version")")
        #expect(!model.entitySets.isEmpty)
        var unresolved: [String] = []
        var resolved = 0
        for set in model.entitySets {
            let type = try #require(model.entityTypes[set.entityType], "\(set.name): no type \(set.entityType)")
            #expect(!model.keyProperties(of: type).isEmpty, "\(set.name) has no key")
            for navigation in model.navigationProperties(of: type) where !navigation.containsTarget {
                if model.resolveNavigation(navigation.name, fromSet: set.name) != nil {
                    resolved += 1
                } else if set.navigationBindings[navigation.name] != nil {
                    unresolved.append("\(set.name)/\(navigation.name)")
                }
            }
        }
        // Every navigation the service binds to a set is found; unbound ones may have no set to lead to.
        #expect(unresolved.isEmpty, "\(service): \(unresolved)")
        #expect(resolved > 0, "\(service): no navigation resolved")
    }
}
