import DemoServer
import Hummingbird
import HummingbirdTesting
import ODataCore
import Testing

/// Many small cases through the application's responder without sockets (HummingbirdTesting `.router`),
/// plus one `.live` run of the same application on port 0.
struct RouterTests {
    static func application(
        _ configuration: DemoServerConfiguration = DemoServerConfiguration()
    ) throws
        -> Application<ODataResponder>
    {
        DemoServer.buildApplication(configuration, store: try DataStore.open(path: nil, people: nil))
    }

    static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test func counts_navigations_properties_and_values() async throws {
        try await Self.application().test(.router) { client in
            let count = try await client.execute(uri: "/CarDealer.svc/Person(1)/PersonCar/$count", method: .get)
            #expect(Self.text(count) == "2")
            let car = try await client.execute(uri: "/CarDealer.svc/PersonCar(2)/Car", method: .get)
            #expect(Self.text(car).contains("\"model\":\"Mustang\""))
            let keyed = try await client.execute(uri: "/CarDealer.svc/Person(1)/PersonCar(2)", method: .get)
            #expect(keyed.status == .ok)
            let notHis = try await client.execute(uri: "/CarDealer.svc/Person(1)/PersonCar(3)", method: .get)
            #expect(notHis.status == .notFound)
            let name = try await client.execute(uri: "/CarDealer.svc/Person(1)/firstName", method: .get)
            #expect(Self.text(name) == "{\"d\":{\"firstName\":\"Bob\"}}")
            let raw = try await client.execute(uri: "/CarDealer.svc/Person(1)/firstName/$value", method: .get)
            #expect(Self.text(raw) == "Bob")
            let named = try await client.execute(uri: "/CarDealer.svc/Person(personID=1)", method: .get)
            #expect(named.status == .ok)
            // As pyodata sends it.
            let encoded = try await client.execute(uri: "/CarDealer.svc/Person%281%29", method: .get)
            #expect(encoded.status == .ok)
        }
    }

    @Test func select_into_expansions_keeps_only_what_was_asked() async throws {
        try await Self.application().test(.router) { client in
            let response = try await client.execute(
                uri: "/CarDealer.svc/Person(1)?$expand=PersonCar/Car&$select=lastName,PersonCar/Car/model", method: .get
            )
            let body = Self.text(response)
            #expect(body.contains("\"lastName\":\"Samson\""))
            #expect(!body.contains("firstName"))
            #expect(body.contains("\"model\":\"Explorer\""))
            #expect(!body.contains("\"make\""))
            // The version goes with every entity, whatever `$select` names (as SAP Gateway sends it): a client
            // merging a cut copy into a whole one tells by it whether the fields left out may have changed.
            #expect(body.components(separatedBy: "\"etag\"").count == 6)  // Person, 2 PersonCar, 2 Car
            #expect(!body.contains("createDate"))
            let versioned = try await client.execute(
                uri: "/v4/CarDealer.svc/Person(1)?$expand=PersonCar($select=personCarID;$expand=Car($select=model))"
                    + "&$select=lastName",
                method: .get)
            let v4 = Self.text(versioned)
            #expect(versioned.status == .ok)
            #expect(v4.contains("\"lastName\":\"Samson\"") && !v4.contains("firstName"))
            #expect(v4.contains("\"personCarID\":1") && !v4.contains("\"createStamp\""))
            #expect(v4.contains("\"model\":\"Explorer\"") && !v4.contains("\"make\""))
            #expect(v4.components(separatedBy: "@odata.etag").count == 6)  // Person, 2 PersonCar, 2 Car
            let unexpanded = try await client.execute(
                uri: "/CarDealer.svc/Person(1)?$select=PersonCar/Car/model", method: .get
            )
            #expect(unexpanded.status == .badRequest)
        }
    }

    @Test func orderby_descending_and_skip_top_page_through_keys() async throws {
        try await Self.application().test(.router) { client in
            let response = try await client.execute(
                uri: "/CarDealer.svc/Maintenance?$orderby=cost%20desc&$top=3&$select=cost", method: .get
            )
            let payload = try PayloadDecoder(serviceRoot: "http://127.0.0.1/CarDealer.svc/")
                .decode(Array(buffer: response.body))
            guard case .collection(let list) = payload else {
                Issue.record("not a collection")
                return
            }
            let costs = list.entities.compactMap { entity -> Double? in
                switch entity["cost"] {
                case .decimal(let text), .string(let text): return Double(text)
                default: return nil
                }
            }
            #expect(costs.count == 3)
            #expect(costs == costs.sorted(by: >))
            #expect(list.nextLink == nil)
        }
    }

    @Test func limits_and_injected_faults_answer_with_odata_errors() async throws {
        try await Self.application().test(.router) { client in
            let long = try await client.execute(
                uri: "/CarDealer.svc/Person?$filter=" + String(repeating: "a", count: 9000), method: .get
            )
            #expect(long.status == .uriTooLong)
            let outside = try await client.execute(uri: "/elsewhere", method: .get)
            #expect(outside.status == .notFound)
            #expect(Self.text(outside).hasPrefix("{\"error\":"))
            let head = try await client.execute(uri: "/CarDealer.svc/Person(1)", method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
        }
        try await Self.application(DemoServerConfiguration(failRate: 1)).test(.router) { client in
            let response = try await client.execute(uri: "/CarDealer.svc/Person", method: .get)
            #expect(response.status == .serviceUnavailable)
            #expect(Self.text(response).contains("InjectedFault"))
        }
    }

    @Test func the_application_also_serves_on_a_live_socket() async throws {
        try await Self.application().test(.live) { client in
            let response = try await client.execute(uri: "/CarDealer.svc/$metadata", method: .get)
            #expect(response.status == .ok)
            _ = try EDMXParser.parse(Array(buffer: response.body))
        }
    }
}
