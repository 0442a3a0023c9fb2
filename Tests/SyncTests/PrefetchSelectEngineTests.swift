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
          "manufactureDate":"\/Date(0)\/","createStamp":"\/Date(0)\/"}}
        """#

    func engine(_ transport: FakeTransport, select: Bool = true) throws -> SyncEngine {
        var configuration = SyncEngine.Configuration(serviceRoot: Self.root)
        configuration.pageSize = 10
        configuration.selectPrefetch = select
        configuration.profile = PrefetchHints(drillPaths: [["PersonCar", "Car"]], shown: ["Car": ["make"]])
        return SyncEngine(
            configuration: configuration, cache: try CacheDatabase(), transport: transport,
            model: CarDealerModel.model, clock: ManualClock(autoAdvance: true), random: { 0.5 })
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
        engine.refresh(screen: ScreenID(1))
        await engine.waitUntilIdle()
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
}
