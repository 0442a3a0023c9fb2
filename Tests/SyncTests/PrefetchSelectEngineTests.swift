import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// The fetcher's `$select` lever: a page's next screen comes cut to what that screen shows, a detail screen fetches
/// the rest, and a cut copy never erases what a whole one brought.
@Suite struct PrefetchSelectEngineTests {
    static let root = "http://cardealer.test/svc/"
    let person = EntityKey(entitySet: "Person", value: .int(3))
    let car = EntityKey(entitySet: "Car", value: .int(3))

    /// People 1…5 whole, their cars cut to key and make (as a service answers the `$select`).
    static func cutPage() -> String {
        let people = (1...5).map { id in
            #"""
            {"__metadata":{"uri":"\#(root)Person(\#(id))","etag":"W/\"p\#(id)\""},"personID":\#(id),"firstName":"P\#(id)",
             "lastName":"L","ssn":"1","createDate":"\/Date(0)\/",
             "PersonCar":{"results":[{"__metadata":{"uri":"\#(root)PersonCar(\#(id))"},"personCarID":\#(id),
               "Car":{"__metadata":{"uri":"\#(root)Car(\#(id))","etag":"W/\"c\#(id)\""},"carID":\#(id),
                 "make":"Ford"}}]}}
            """#
        }.joined(separator: ",")
        return #"{"d":{"results":[\#(people)],"__count":"5"}}"#
    }

    static let wholeCar = #"""
        {"d":{"__metadata":{"uri":"\#(root)Car(3)","etag":"W/\"c3\""},"carID":3,"make":"Ford","model":"Focus",
          "manufactureDate":"\/Date(0)\/","createStamp":"\/Date(0)\/","PersonCar":{"results":[]}}}
        """#

    func engine(_ transport: FakeTransport, select: Bool = true) throws -> SyncEngine {
        try SyncEngine.forTesting(root: Self.root, transport: transport, model: CarDealerModel.model) {
            $0.pageSize = 10
            $0.selectPrefetch = select
            $0.profile = PrefetchHints(drillPaths: [["PersonCar", "Car"]], shown: ["Car": ["make"]])
        }
    }

    @Test func a_page_asks_its_next_screen_cut_and_a_detail_screen_fetches_the_rest() async throws {
        let transport = FakeTransport { request, _ in
            request.url.contains("Car(3)") ? json(Self.wholeCar) : json(Self.cutPage())
        }
        let engine = try engine(transport)
        // When the people screen shows
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        // Then the page asked for its people whole and their cars cut to what the cars screen shows
        let page = try #require(await transport.requests.first?.url)
        #expect(page.contains("$select=personID,firstName,lastName,ssn,createDate,"))
        #expect(page.contains("PersonCar/Car/carID,PersonCar/Car/make&") && !page.contains("PersonCar/Car/model"))
        // And the cache holds the people whole, the cars in part
        #expect(try engine.cache.entity(person)?.isComplete == true)
        let cut = try #require(try engine.cache.entity(car))
        #expect(!cut.isComplete && cut["make"] == .string("Ford") && cut["model"] == nil)

        // When the person's cars screen and the person's detail show: nothing more is asked
        let before = await transport.requests.count
        engine.screenDidShow(.related(parent: person, path: ["PersonCar", "Car"]), visible: 0..<5, screen: ScreenID(2))
        engine.screenDidShow(.entity(person), visible: 0..<1, screen: ScreenID(3))
        await engine.waitUntilIdle()
        #expect(await transport.requests.count == before)

        // When the car's detail shows: it is fetched whole, and is whole from then on
        engine.screenDidShow(.entity(car), visible: 0..<1, screen: ScreenID(4))
        await engine.waitUntilIdle()
        let detail = try #require(await transport.requests.last?.url)
        #expect(detail.hasPrefix(Self.root + "Car(3)") && !detail.contains("$select"), "\(detail)")
        let whole = try #require(try engine.cache.entity(car))
        #expect(whole.isComplete && whole["model"] == .string("Focus"))

        // When the people page is asked again (a refresh) and brings the car cut once more, same version
        let beforeRefresh = await transport.requests.count
        engine.refresh(screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(await transport.requests.count == beforeRefresh + 1)
        #expect(await transport.requests.last?.url.contains("PersonCar/Car/make") == true)
        // Then the fields only the whole copy brought are still there, and it is still whole
        let after = try #require(try engine.cache.entity(car))
        #expect(after.isComplete && after["model"] == .string("Focus") && after["manufactureDate"] != nil)
    }

    @Test func with_the_lever_off_pages_ask_for_everything() async throws {
        let transport = FakeTransport { _, _ in json(Self.cutPage()) }
        let engine = try engine(transport, select: false)
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(
            await transport.requests.first?.url == Self.root
                + "Person?$expand=PersonCar/Car&$top=10&$inlinecount=allpages")
        // What arrives is taken as whole (the service was asked for everything)
        #expect(try engine.cache.entity(car)?.isComplete == true)
    }

    /// People `ids` whole, their cars cut, with `__next` when given.
    static func cutPeople(_ ids: ClosedRange<Int>, next: String?, carETag: (Int) -> String = { "c\($0)" }) -> String {
        let people = ids.map { id in
            #"""
            {"__metadata":{"uri":"\#(root)Person(\#(id))"},"personID":\#(id),"firstName":"P\#(id)","lastName":"L",
             "ssn":"1","createDate":"\/Date(0)\/",
             "PersonCar":{"results":[{"__metadata":{"uri":"\#(root)PersonCar(\#(id))"},"personCarID":\#(id),
               "Car":{"__metadata":{"uri":"\#(root)Car(\#(id))","etag":"W/\"\#(carETag(id))\""},"carID":\#(id),
                 "make":"Ford"}}]}}
            """#
        }.joined(separator: ",")
        let nextText = next.map { #","__next":"\#($0)""# } ?? ""
        return #"{"d":{"results":[\#(people)],"__count":"5"\#(nextText)}}"#
    }

    @Test func a_page_reached_by_the_services_next_link_is_cut_too_and_erases_nothing() async throws {
        // Given a service that pages by two, its next links carrying our query (as servers copy it)
        let transport = FakeTransport { request, _ in
            if let range = request.url.range(of: "$skiptoken=") {
                let from = Int(request.url[range.upperBound...].prefix { $0.isNumber })!
                let to = min(from + 1, 5)
                return json(
                    Self.cutPeople(
                        from...to,
                        next: to < 5
                            ? request.url.replacingOccurrences(
                                of: "$skiptoken=\(from)", with: "$skiptoken=\(to + 1)") : nil))
            }
            return json(Self.cutPeople(1...2, next: request.url + "&$skiptoken=3"))
        }
        let engine = try engine(transport)
        // And car 4 known whole, same version as the pages will bring
        try await engine.cache.write { session in
            try session.upsertEntity(
                key: "Car(4)", entitySet: "Car", type: nil,
                properties: [
                    ODataProperty(name: "carID", value: .int(4)), ODataProperty(name: "make", value: .string("Ford")),
                    ODataProperty(name: "model", value: .string("Ka")),
                ], etag: "W/\"c4\"", at: Date(), partial: false)
        }
        // When the people screen shows all five
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(await transport.requests.contains { $0.url.contains("$skiptoken=5") })
        // Then the cars of the later pages are known in part, and car 4 kept what its whole copy brought
        let five = try #require(try engine.cache.entity(EntityKey(entitySet: "Car", value: .int(5))))
        #expect(!five.isComplete && five["make"] == .string("Ford"))
        let four = try #require(try engine.cache.entity(EntityKey(entitySet: "Car", value: .int(4))))
        #expect(four.isComplete && four["model"] == .string("Ka"))
    }

    @Test func a_detail_of_a_record_cut_since_its_last_fetch_asks_again_without_a_validator() async throws {
        // Given a service that answers "not modified" to any validator
        let transport = FakeTransport { request, _ in
            if request.headers["If-None-Match"] != nil { return TransportResponse(status: 304, headers: [:], body: []) }
            if request.url.contains("Car(3)") { return json(Self.wholeCar, etag: "W/\"c3\"") }
            return json(Self.cutPeople(1...5, next: nil, carETag: { "c\($0)-new" }))
        }
        let engine = try engine(transport)
        // And car 3's detail fetched whole a moment ago
        engine.screenDidShow(.entity(car), visible: 0..<1, screen: ScreenID(4))
        await engine.waitUntilIdle()
        engine.screenDidClose(ScreenID(4))
        #expect(try engine.cache.entity(car)?.isComplete == true)
        // When a page brings a new version of it, cut
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        #expect(try engine.cache.entity(car)?.isComplete == false)
        // Then opening its detail again asks for it (though answered a moment ago), without a validator, whole
        let before = await transport.requests.count
        engine.screenDidShow(.entity(car), visible: 0..<1, screen: ScreenID(5))
        await engine.waitUntilIdle()
        let asked = await transport.requests.dropFirst(before)
        #expect(asked.count == 1 && asked.first?.headers["If-None-Match"] == nil, "\(asked.map(\.url))")
        #expect(try engine.cache.entity(car)?.isComplete == true)
    }

    @Test func a_service_that_refuses_select_gets_whole_prefetches_from_then_on() async throws {
        // Given a service that answers 400 to any $select
        let transport = FakeTransport { request, _ in
            request.url.contains("$select")
                ? json(#"{"error":{"code":"","message":{"lang":"en","value":"no $select here"}}}"#, status: 400)
                : json(Self.cutPage())
        }
        let cache = try CacheDatabase()
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        configuration.profile = PrefetchHints(drillPaths: [["PersonCar", "Car"]], shown: ["Car": ["make"]])
        let engine = SyncEngine(
            configuration: configuration, cache: cache, transport: transport, model: CarDealerModel.model,
            clock: ManualClock(autoAdvance: true), random: { 0.5 })
        // When the people screen shows
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        // Then the refused page was asked again whole, the list filled, and the service's refusal remembered
        let urls = await transport.requests.map(\.url)
        #expect(urls.count == 2 && urls[0].contains("$select") && !urls[1].contains("$select"), "\(urls)")
        #expect(try cache.listWindow(ListRequest(entitySet: "Person").key, range: 0..<5).rows.count == 5)
        #expect(try cache.requestLog(limit: 10).contains { $0.error?.contains("asked again without $select") == true })
        #expect(try cache.serviceFacts().contains(.refusesSelect))
        // And a browser started later on the same cache never sends $select
        let later = FakeTransport { _, _ in json(Self.cutPage()) }
        let again = SyncEngine(
            configuration: configuration, cache: cache, transport: later, model: CarDealerModel.model,
            clock: ManualClock(autoAdvance: true), random: { 0.5 })
        again.screenDidShow(.list(ListRequest(entitySet: "Car")), visible: 0..<5, screen: ScreenID(1))
        await again.waitUntilIdle()
        #expect(await later.requests.allSatisfy { !$0.url.contains("$select") })
        #expect(await later.requests.count >= 1)
    }

    @Test func a_list_of_link_entities_cut_to_their_label_is_fetched_whole_when_shown() async throws {
        // Given a page whose links came cut to their label (the cars screen hops through them)
        let transport = FakeTransport { request, _ in
            if request.url.hasPrefix(Self.root + "Person(3)") {
                return json(
                    #"""
                    {"d":{"__metadata":{"uri":"\#(Self.root)Person(3)"},"personID":3,"firstName":"P3","lastName":"L",
                     "ssn":"1","createDate":"\/Date(0)\/","PersonCar":{"results":[{"__metadata":{"uri":
                     "\#(Self.root)PersonCar(3)"},"personCarID":3,"createStamp":"\/Date(0)\/"}]}}}
                    """#)
            }
            return json(Self.cutPage())
        }
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        configuration.profile = PrefetchHints(
            drillPaths: [["PersonCar", "Car"]], shown: ["Car": ["make"]], labels: ["PersonCar": ["personCarID"]])
        let engine = SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        let link = EntityKey(entitySet: "PersonCar", value: .int(3))
        #expect(await transport.requests.first?.url.contains("PersonCar/personCarID,PersonCar/Car/carID") == true)
        #expect(try engine.cache.entity(link)?.isComplete == false)
        // When the cars screen shows (hopping through them): nothing is asked
        let before = await transport.requests.count
        engine.screenDidShow(.related(parent: person, path: ["PersonCar", "Car"]), visible: 0..<5, screen: ScreenID(2))
        await engine.waitUntilIdle()
        #expect(await transport.requests.count == before)
        // When the link entities themselves are listed: they are asked for whole
        engine.screenDidShow(.related(parent: person, path: ["PersonCar"]), visible: 0..<5, screen: ScreenID(3))
        await engine.waitUntilIdle()
        #expect(await transport.requests.count == before + 1)
        let whole = try #require(try engine.cache.entity(link))
        #expect(whole.isComplete && whole["createStamp"] != nil)
    }
}
