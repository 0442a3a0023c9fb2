import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Testing

@testable import Sync

/// A page of a list's chain is asked by the server's next link only at the position that link continues at, read
/// with the link: a plan made from a state read before the chain moved on would otherwise send the newer link for the
/// older position, and its rows would land there (seen under load in `DemoServerIntegrationTests`: positions 70–79
/// held the people of 90–99, and 90–99 stayed empty with the link at 90 already asked).
@Suite struct NextLinkPlanTests {
    static let people = ListRequest(entitySet: "Person")

    static func keys(_ range: Range<Int>) -> [EntityKey] {
        range.map { EntityKey(entitySet: "Person", value: .int(Int64($0))) }
    }

    @Test func a_state_read_before_the_chain_moved_on_asks_its_position_by_skip_not_by_the_newer_link() async throws {
        let service = try ListCountTests.service(count: "60")
        let engine = try ListCountTests.engine(service, model: try ListCountTests.model(countable: true))
        let key = Self.people.key
        // Given a list whose chain stood at 20 when the planner read its state
        try await engine.cache.write {
            try $0.writeListPage(
                key, offset: 0, entityKeys: Self.keys(0..<20), totalCount: 60, nextLink: "Person?$skiptoken=20",
                isLastPage: false, at: Date())
        }
        let stale = try #require(try engine.cache.listState(key))
        #expect(stale.nextPosition == 20)
        // And the page at 20 then written, the chain now at 40
        try await engine.cache.write {
            try $0.writeListPage(
                key, offset: 20, entityKeys: Self.keys(20..<40), totalCount: 60, nextLink: "Person?$skiptoken=40",
                isLastPage: false, at: Date())
        }
        // When the positions from 20 are planned with the state read before
        let plan = await engine.pagePlan(
            Self.people, set: "Person", expand: [], selection: .init(), offset: 20, end: 40, state: stale)
        // Then they are asked by $skip, and the link to 40 is not sent for them
        #expect(!plan.url.contains("skiptoken=40"), "\(plan.url)")
        #expect(plan.url.contains("$skip=20"), "\(plan.url)")
        // And the position the chain now stands at is asked by its link
        let fresh = try #require(try engine.cache.listState(key))
        let next = await engine.pagePlan(
            Self.people, set: "Person", expand: [], selection: .init(), offset: 40, end: 60, state: fresh)
        #expect(next.url.hasSuffix("Person?$skiptoken=40"), "\(next.url)")
        if case .listPage(_, _, let offset, _) = next.target { #expect(offset == 40) } else { Issue.record() }
    }
}
