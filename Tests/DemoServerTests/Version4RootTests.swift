import DemoServer
import Foundation
import ODataCore
import Testing

/// The built-in service's second root, `/v4/CarDealer.svc/` (issue 19): the same data as OData v4, on a real socket,
/// read back by the client's own v4 model and decoder.
struct Version4RootTests {
    func model(_ service: LiveService) async throws -> ServiceModel {
        let response = try await service.get(service.server.version4URL + "$metadata")
        #expect(response.status == 200)
        return try EDMXParser.parse(Array(response.body))
    }

    func payload(
        _ service: LiveService, _ relative: String, model: ServiceModel, set: String?
    ) async throws
        -> ODataPayload
    {
        let response = try await service.get(service.server.version4URL + relative)
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.headers["odata-version"] == "4.0")
        #expect(response.headers["dataserviceversion"] == nil)
        return try PayloadDecoder(serviceRoot: service.server.version4URL, model: model).decode(
            Array(response.body), entitySet: set)
    }

    @Test func its_metadata_is_csdl_v4_whose_bindings_lead_where_v2s_associations_do() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let v4 = try await model(service)
        let v2 = try EDMXParser.parse(Array(try await service.get("$metadata").body))
        #expect(v4.dialect == .v4 && v2.dialect == .v2)
        // (and the work orders, kept in drafts, and their drafts' administrative data: the v4 root's alone; a car's
        // options live inside it in v4, a set of their own in v2, issue 37)
        #expect(
            v4.entitySets.map(\.name)
                == v2.entitySets.map(\.name).filter { $0 != "CarOption" } + ["WorkOrder", "DraftAdministrativeData"])
        #expect(v4.containedEntitySets.map(\.name) == ["Car/Options"])
        let v4Name = { (set: String) in set == "CarOption" ? "Car/Options" : set }
        for set in v2.entitySets {
            let type = try #require(v2.entityType(ofSet: set.name))
            for navigation in v2.navigationProperties(of: type) {
                let old = v2.resolveNavigation(navigation.name, fromSet: set.name)
                let new = v4.resolveNavigation(navigation.name, fromSet: v4Name(set.name))
                #expect(new?.targetSet == old.map { v4Name($0.targetSet) }, "\(set.name)/\(navigation.name)")
                #expect(new?.isCollection == old?.isCollection, "\(set.name)/\(navigation.name)")
                #expect(new?.isContained == (set.name == "Car" && navigation.name == "Options"))
            }
        }
    }

    @Test func the_seeds_request_in_v4_brings_the_same_people_and_cars_with_a_count() async throws {
        let service = try await LiveService.start(pageSize: 50)
        defer { Task { await service.server.stop() } }
        let model = try await model(service)
        let payload = try await payload(
            service, "Person?$filter=contains(lastName,'amso')&$expand=PersonCar($expand=Car)&$count=true",
            model: model, set: "Person")
        guard case .collection(let people) = payload else {
            Issue.record("not a collection: \(payload)")
            return
        }
        let bob = try #require(people.entities.first { $0["firstName"] == .string("Bob") })
        #expect(people.count == Int64(people.entities.count))
        #expect(bob.key == EntityKey(entitySet: "Person", value: .int(1)))
        #expect(
            bob["createDate"]
                == .dateTimeOffset(ODataInstant(millisecondsSince1970: 1_257_008_908_440, offsetMinutes: 0)))
        #expect(bob.metadata.etag?.hasPrefix("W/") == true)
        guard case .collection(let ownerships) = bob.navigation("PersonCar") else {
            Issue.record("PersonCar not expanded")
            return
        }
        let cars = ownerships.entities.compactMap { ownership -> ODataEntity? in
            if case .entity(let car) = ownership.navigation("Car") { return car }
            return nil
        }
        #expect(cars.map { $0["model"] } == [.string("Explorer"), .string("Mustang")])
        #expect(cars.map(\.key) == [2, 5].map { EntityKey(entitySet: "Car", value: .int($0)) })
    }

    @Test func a_long_list_pages_by_next_link_with_its_options_kept() async throws {
        let service = try await LiveService.start(pageSize: 50)
        defer { Task { await service.server.stop() } }
        let model = try await model(service)
        guard
            case .collection(let first) = try await payload(
                service, "Person?$count=true&$expand=PersonCar", model: model, set: "Person")
        else {
            Issue.record("not a collection")
            return
        }
        #expect(first.entities.count == 50 && first.count == 200)
        let next = try #require(first.nextLink)
        #expect(next.contains("$count=true") && next.contains("$expand=PersonCar") && next.contains("$skiptoken="))
        guard
            case .collection(let second) = try await payload(
                service, String(next.dropFirst(service.server.version4URL.count)), model: model, set: "Person")
        else {
            Issue.record("not a collection")
            return
        }
        #expect(second.entities.count == 50)
        #expect(Set(first.entities.compactMap(\.key)).isDisjoint(with: second.entities.compactMap(\.key)))
    }

    @Test func v2s_options_and_unbalanced_nesting_are_refused_in_v4s_error_shape() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for relative in ["Person?$inlinecount=allpages", "Person?$expand=PersonCar($expand=Car"] {
            let response = try await service.get(service.server.version4URL + relative)
            #expect(response.status == 400, "\(relative)")
            let error = ODataError.fromResponse(
                status: response.status, url: nil, contentType: response.headers["content-type"],
                body: Array(response.body))
            #expect(!error.message.isEmpty && error.message != "Bad Request", "\(error)")
        }
        // and v4's $count is not v2's
        #expect(try await service.get("Person?$count=true").status == 400)
    }

    @Test func a_v4_client_changes_with_patch_and_creates_bound_by_odata_bind() async throws {
        let service = try await LiveService.startPrivate()
        defer { Task { await service.server.stop() } }
        let root = service.server.version4URL
        let before = try await service.get(root + "Car(2)")
        let etag = try #require(before.headers["etag"])
        let patched = try await service.get(
            root + "Car(2)", headers: ["If-Match": etag], method: "PATCH", body: #"{"model":"Explorer XLT"}"#)
        #expect(patched.status == 204)
        #expect(patched.headers["odata-version"] == "4.0")
        let made = try await service.get(
            root + "PersonCar", method: "POST",
            body: #"{"Person@odata.bind":"\#(root)Person(1)","Car@odata.bind":"Car(2)"}"#)
        #expect(made.status == 201, "\(String(decoding: made.body, as: UTF8.self))")
        let model = try await model(service)
        guard
            case .entity(let ownership) = try PayloadDecoder(serviceRoot: root, model: model).decode(
                Array(made.body), entitySet: "PersonCar")
        else {
            Issue.record("no entity in the 201")
            return
        }
        let key = try #require(ownership.key)
        guard
            case .entity(let read) = try await payload(
                service, key.canonical + "?$expand=Person,Car", model: model, set: "PersonCar")
        else {
            Issue.record("not an entity")
            return
        }
        if case .entity(let car) = read.navigation("Car") {
            #expect(car["model"] == .string("Explorer XLT"))
        } else {
            Issue.record("Car not expanded")
        }
        if case .entity(let person) = read.navigation("Person") {
            #expect(person["personID"] == .int(1))
        } else {
            Issue.record("Person not expanded")
        }
    }
}
