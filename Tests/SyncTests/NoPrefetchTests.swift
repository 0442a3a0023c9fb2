import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// The fetch-on-navigate baseline (`Configuration.prefetch = false`) that the benchmarks compare with:
/// only what is on screen is fetched, when it is shown.
@Suite struct NoPrefetchTests {
    static let root = SyncEngineTests.root
    static let person = EntityKey(entitySet: "Person", value: .int(3))

    /// People `ids` with `PersonCar` deferred, as a server answers without `$expand`.
    static func plainPage(_ ids: Range<Int>, count: Int) -> String {
        let people = ids.map { id in
            #"{"__metadata":{"uri":"\#(root)Person(\#(id))"},"personID":\#(id),"firstName":"P\#(id)","#
                + #""PersonCar":{"__deferred":{"uri":"\#(root)Person(\#(id))/PersonCar"}}}"#
        }.joined(separator: ",")
        return #"{"d":{"results":[\#(people)],"__count":"\#(count)"}}"#
    }

    /// A service with 25 people that honours `$expand`; a person's own URL answers with their cars expanded.
    func makeTransport() -> FakeTransport {
        FakeTransport { request, _ in
            if request.url.hasPrefix(Self.root + "Person(") {
                let page = SyncEngineTests.peoplePage(3..<4)
                // The single entity: the first element of the page, unwrapped.
                let start = page.range(of: "[")!.upperBound
                let end = page.range(of: "]}}", options: .backwards)!.lowerBound
                return json(#"{"d":"# + String(page[start..<end]) + "}")
            }
            let skip =
                request.url.range(of: "$skip=").map { Int(request.url[$0.upperBound...].prefix { $0.isNumber })! } ?? 0
            let ids = skip..<min(skip + 10, 25)
            guard request.url.contains("$expand=") else { return json(Self.plainPage(ids, count: 25)) }
            return json(SyncEngineTests.peoplePage(ids, count: 25))
        }
    }

    func makeEngine(_ transport: FakeTransport, prefetch: Bool) throws -> SyncEngine {
        try SyncEngine.forTesting(root: Self.root, transport: transport, model: CarDealerModel.model) {
            $0.pageSize = 10
            $0.prefetch = prefetch
        }
    }

    /// Shows the people list, rests the cursor on person 3, waits, then drills into their cars.
    /// Returns the URLs requested before and after the drill-down.
    func browse(prefetch: Bool) async throws -> (before: [String], after: [String], engine: SyncEngine) {
        let transport = makeTransport()
        let engine = try makeEngine(transport, prefetch: prefetch)
        engine.screenDidShow(.list(ListRequest(entitySet: "Person")), visible: 0..<5, screen: ScreenID(1))
        await engine.waitUntilIdle()
        engine.cursorDidRest(on: Self.person, neighbours: [], in: ScreenID(1))
        await engine.waitUntilIdle()
        let before = await transport.requests.map(\.url)
        engine.screenDidShow(
            .related(parent: Self.person, path: ["PersonCar", "Car"]), visible: 0..<10, screen: ScreenID(2))
        await engine.waitUntilIdle()
        let after = await transport.requests.map(\.url).dropFirst(before.count)
        return (before, Array(after), engine)
    }

    @Test func without_prefetch_drilling_into_a_person_issues_a_request_for_just_that_screen() async throws {
        // Given the fetch-on-navigate mode, with the people list settled and the cursor resting
        // When a person's cars are opened
        let (before, after, engine) = try await browse(prefetch: false)
        // Then the list page was fetched without $expand, resting predicted nothing,
        #expect(before == [Self.root + "Person?$top=10&$inlinecount=allpages"])
        // and the drill-down asked for exactly what it shows
        #expect(after == [Self.root + "Person(3)?$expand=PersonCar/Car"])
        #expect(
            try engine.cache.related(Self.person, path: ["PersonCar", "Car"]).elements?.first?.target?["make"]
                == .string("Ford"))
    }

    @Test func with_prefetch_drilling_into_a_person_issues_no_request() async throws {
        // Given the default mode, with the people list settled and the cursor resting
        // When a person's cars are opened
        let (before, after, _) = try await browse(prefetch: true)
        // Then the page came with the next screen expanded, and the drill-down needed nothing
        #expect(before.first == Self.root + "Person?$expand=PersonCar/Car&$top=10&$inlinecount=allpages")
        #expect(after.isEmpty, "\(after)")
    }
}
