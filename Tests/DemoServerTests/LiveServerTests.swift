import DemoServer
import Foundation
import ODataCore
import Testing

/// Tests through the real server on a real socket (127.0.0.1:0) with URLSession, decoded by ODataCore.
struct LiveServerTests {
    @Test func the_seeds_request_returns_the_seeds_shape() async throws {
        // Given the demo server with default data
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        // When the seed's request is made
        let payload = try await service.payload("Person(1)?$expand=PersonCar,PersonCar/Car")
        // Then Bob Samson comes back with his Ford Explorer and Ford Mustang, as in the seed
        guard case .entity(let person) = payload else {
            Issue.record("not an entity: \(payload)")
            return
        }
        #expect(person.metadata.type == "edmexampleModel.Person")
        #expect(person.metadata.uri == service.server.baseURL + "Person(1)")
        #expect(person["firstName"] == .string("Bob"))
        #expect(person["lastName"] == .string("Samson"))
        #expect(person["ssn"] == .string("543872934"))
        #expect(person["createDate"] == .dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440)))
        guard case .collection(let personCars) = person.navigation("PersonCar") else {
            Issue.record("PersonCar not expanded")
            return
        }
        #expect(personCars.entities.map { $0["personCarID"] } == [.int(1), .int(2)])
        let cars = personCars.entities.compactMap { entity -> ODataEntity? in
            if case .entity(let car) = entity.navigation("Car") { return car }
            return nil
        }
        #expect(cars.map { $0["model"] } == [.string("Explorer"), .string("Mustang")])
        #expect(cars.map { $0["carID"] } == [.int(2), .int(5)])
        if case .deferred(let uri) = cars[0].navigation("PersonCar") {
            #expect(uri == service.server.baseURL + "Car(2)/PersonCar")
        } else {
            Issue.record("Car.PersonCar should be deferred")
        }
        if case .deferred = personCars.entities[0].navigation("PersonCarMaintenance") {
        } else {
            Issue.record("PersonCar.PersonCarMaintenance should be deferred")
        }
    }

    @Test func following_next_links_returns_every_row_exactly_once() async throws {
        // Given a small page size
        let service = try await LiveService.start(pageSize: 7)
        defer { Task { await service.server.stop() } }
        let total = try await service.get("Person/$count")
        let expected = Int(String(decoding: total.body, as: UTF8.self))!
        // When all pages of a sorted list are fetched through __next
        var seen: [Int64] = []
        var next: String? = "Person?$orderby=lastName%20desc,firstName&$select=personID,lastName&$inlinecount=allpages"
        var pages = 0
        while let url = next {
            let page = try await service.collection(url)
            #expect(page.entities.count <= 7)
            #expect(page.count == Int64(expected))
            for entity in page.entities { if case .int(let id) = entity["personID"] { seen.append(id) } }
            next = page.nextLink
            pages += 1
        }
        // Then every person appears exactly once
        #expect(seen.count == expected)
        #expect(Set(seen).count == expected)
        #expect(pages == (expected + 6) / 7)
    }

    @Test func top_across_pages_stops_at_top() async throws {
        let service = try await LiveService.start(pageSize: 10)
        defer { Task { await service.server.stop() } }
        var count = 0
        var next: String? = "Car?$top=25&$skip=3"
        while let url = next {
            let page = try await service.collection(url)
            count += page.entities.count
            next = page.nextLink
        }
        #expect(count == 25)
    }

    @Test func filters_select_the_right_rows_and_injection_finds_nothing() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let samsons = try await service.collection(
            "Person?$filter=lastName%20eq%20'Samson'%20and%20firstName%20eq%20'Bob'")
        #expect(samsons.entities.contains { $0["personID"] == .int(1) })
        let injection = try await service.collection("Person?$filter=lastName%20eq%20'x''%20or%201=1%20--'")
        #expect(injection.entities.isEmpty)
        let dropTable = try await service.get("Person?$filter=lastName%20eq%20'';%20DROP%20TABLE%20Person;%20--'")
        #expect(dropTable.status == 400)  // the literal ends at the second quote; `;` is a syntax error
        let stillThere = try await service.collection("Person?$top=1")
        #expect(stillThere.entities.count == 1)
        let fords = try await service.collection(
            "Car?$filter=startswith(make,'Fo')%20and%20not%20(model%20eq%20'Focus')")
        #expect(!fords.entities.isEmpty)
        #expect(fords.entities.allSatisfy { $0["make"] == .string("Ford") && $0["model"] != .string("Focus") })
        let old = try await service.collection("Car?$filter=manufactureDate%20lt%20datetime'1970-01-01T00:00:00'")
        for car in old.entities {
            guard case .dateTime(let date) = car["manufactureDate"] else { continue }
            #expect(date.millisecondsSince1970 < 0)
        }
        let upper = try await service.collection("Person?$filter=toupper(lastName)%20eq%20'SAMSON'")
        #expect(upper.entities.contains { $0["personID"] == .int(1) })
        // Case folds in every script, as the browser's filter (lower-cased text, `tolower(field)`) needs
        for (name, typed) in [("Åström", "åström"), ("Σταύρου", "σταύρου"), ("Øvergård", "øvergård")] {
            let query = "Person?$filter=substringof('\(typed)',tolower(lastName))&$top=3"
            let found = try await service.collection(
                query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!)
            #expect(
                !found.entities.isEmpty && found.entities.allSatisfy { $0["lastName"] == .string(name) }, "\(typed)")
        }
        let shouted = try await service.collection("Person?$filter=toupper(lastName)%20eq%20'%C3%85STR%C3%96M'&$top=1")
        #expect(shouted.entities.first?["lastName"] == .string("Åström"))
    }

    @Test func a_version_1_client_gets_plain_arrays() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let response = try await service.get(
            "Person(1)?$expand=PersonCar", headers: ["MaxDataServiceVersion": "1.0"]
        )
        #expect(response.status == 200)
        #expect(response.headers["dataserviceversion"]?.hasPrefix("1.0") == true)
        let json = try JSONReader().read(Array(response.body))
        guard case .array = json["d"]?["PersonCar"] else {
            Issue.record("PersonCar is not a plain array")
            return
        }
        let list = try JSONReader().read(
            Array(try await service.get("Person?$top=3", headers: ["MaxDataServiceVersion": "1.0"]).body))
        guard case .array(let items) = list["d"] else {
            Issue.record("the feed is not a plain array")
            return
        }
        #expect(items.count == 3)
    }

    @Test func a_matching_if_none_match_gets_304() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        for path in ["Person(1)", "Person?$top=5"] {
            let first = try await service.get(path)
            let etag = try #require(first.headers["etag"])
            #expect(etag.hasPrefix("W/\""))
            let second = try await service.get(path, headers: ["If-None-Match": etag])
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            let stale = try await service.get(path, headers: ["If-None-Match": "W/\"other\""])
            #expect(stale.status == 200)
        }
    }

    @Test func errors_are_odata_error_json_with_the_right_status() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let cases: [(String, String, Int)] = [
            ("GET", "Person?$top=-1", 400), ("GET", "Person?$filter=lastName%20eq", 400),
            ("GET", "Person?$orderby=nosuch", 400), ("GET", "Person?$expand=Nope", 400),
            ("GET", "Person?$bogus=1", 400),
            ("GET", "Nope", 404), ("GET", "Person(999999)", 404), ("GET", "Person(1)/nosuch", 404),
            // (writes that would apply are WriteTests', on data of their own: this file is shared)
            ("POST", "Person", 400), ("DELETE", "Person", 400), ("MERGE", "Nope(1)", 400), ("OPTIONS", "Person", 405),
            ("GET", "$batch", 405), ("POST", "$batch", 400),
            ("GET", "Person?$format=atom", 501), ("GET", "Person?$filter=personID%20add%201%20eq%202", 501),
            ("GET", "Person?$expand=PersonCar/Car/PersonCar/Person/PersonCar", 400),
        ]
        for (method, path, status) in cases {
            let response = try await service.get(path, method: method)
            #expect(response.status == status, "\(method) \(path)")
            let error = ODataError.fromResponse(
                status: response.status, url: path, contentType: response.headers["content-type"],
                body: Array(response.body)
            )
            #expect(error.code != nil, "\(method) \(path) has no OData error body")
        }
    }

    @Test func metadata_parses_and_every_navigation_resolves() async throws {
        let service = try await LiveService.start()
        defer { Task { await service.server.stop() } }
        let response = try await service.get("$metadata")
        #expect(response.headers["content-type"]?.hasPrefix("application/xml") == true)
        let model = try EDMXParser.parse(Array(response.body))
        #expect(
            model.entitySets.map(\.name) == [
                "Person", "Car", "PersonCar", "Maintenance", "Make", "PersonCarMaintenance", "CarOption",
            ])
        let expected: [(String, String, String, Bool)] = [
            ("Person", "PersonCar", "PersonCar", true), ("PersonCar", "Person", "Person", false),
            ("PersonCar", "Car", "Car", false), ("Car", "PersonCar", "PersonCar", true),
            ("PersonCar", "PersonCarMaintenance", "PersonCarMaintenance", true),
            ("PersonCarMaintenance", "PersonCar", "PersonCar", false),
            ("PersonCarMaintenance", "Maintenance", "Maintenance", false),
            ("Maintenance", "PersonCarMaintenance", "PersonCarMaintenance", true),
            ("Car", "Options", "CarOption", true), ("CarOption", "Car", "Car", false),
        ]
        for (source, name, target, many) in expected {
            let navigation = try #require(model.resolveNavigation(name, fromSet: source), "\(source).\(name)")
            #expect(navigation.targetSet == target)
            #expect(navigation.isCollection == many)
        }
        for set in model.entitySets {
            let type = try #require(model.entityType(ofSet: set.name))
            for navigation in model.navigationProperties(of: type) {
                #expect(model.resolveNavigation(navigation.name, fromSet: set.name) != nil)
            }
        }
    }
}
