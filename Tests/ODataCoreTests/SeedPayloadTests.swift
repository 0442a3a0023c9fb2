import Testing

@testable import ODataCore

@Suite struct SeedPayloadTests {
    @Test func the_seed_payload_decodes_to_bob_samson_with_two_cars() throws {
        // Given the response the seed printed for Person(1)?$expand=PersonCar,PersonCar/Car
        let bytes = try fixture("seed-person-1-expand-personcar-car.json")

        // When it is decoded without any $metadata
        let decoder = PayloadDecoder(serviceRoot: "http://localhost:8080/EDMTest/CarDealer.svc/")
        let person = try #require(try decoder.decode(bytes).entity)

        // Then it is Person 1, "Samson, Bob", keyed canonically despite the server's other host name
        #expect(person.key?.canonical == "Person(1)")
        #expect(person.entitySet == "Person")
        #expect(person.metadata.type == "edmexampleModel.Person")
        #expect(person["lastName"] == .string("Samson"))
        #expect(person["firstName"] == .string("Bob"))
        #expect(person["ssn"] == .string("543872934"))
        #expect(person["createDate"] == .dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440)))

        // And its two PersonCar links each carry their expanded Car
        let links = try #require(person.navigation("PersonCar")?.entities)
        #expect(links.map { $0.key?.canonical } == ["PersonCar(1)", "PersonCar(2)"])
        let cars = links.map { $0.navigation("Car")?.entity }
        #expect(cars.map { $0?.key?.canonical } == ["Car(2)", "Car(5)"])
        #expect(cars.map { $0?["model"] } == [.string("Explorer"), .string("Mustang")])
        #expect(cars[0]?["manufactureDate"] == .dateTime(ODataInstant(millisecondsSince1970: 1_099_242_508_440)))
        #expect(links[1]["createStamp"] == .dateTime(ODataInstant(millisecondsSince1970: 1_257_109_628_720)))

        // And the navigations it did not expand stay deferred, with where to fetch them
        #expect(
            links[0].navigation("Person")
                == .deferred(uri: "http://192.168.1.112/EDMTest/CarDealer.svc/PersonCar(1)/Person"))
        #expect(
            cars[0]?.navigation("PersonCar")
                == .deferred(uri: "http://192.168.1.112/EDMTest/CarDealer.svc/Car(2)/PersonCar"))
    }

    @Test func the_seed_dates_are_the_instants_the_seed_meant() throws {
        // 1257008908440 ms is 2009-10-31T17:08:28.440Z
        let instant = ODataInstant(millisecondsSince1970: 1_257_008_908_440)
        #expect(instant.iso8601() == "2009-10-31T17:08:28.440")
        #expect(ODataInstant(iso8601: "2009-10-31T17:08:28.440Z")?.millisecondsSince1970 == 1_257_008_908_440)
    }
}
