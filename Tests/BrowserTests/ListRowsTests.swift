import EntityCache
import Foundation
import ODataCore
import Testing

@testable import Browser

/// What a list screen shows where, as a value of its own (issue 33's split of EntityListController): a window, every
/// row with a filter's matches, or the cached matches shown while the service is asked.
@Suite struct ListRowsTests {
    func car(_ id: Int) -> CachedEntity {
        CachedEntity(
            key: EntityKey(entitySet: "Car", value: .int(Int64(id))), entitySet: "Car", type: nil,
            properties: [.init(name: "carID", value: .int(Int64(id)))], etag: nil, fetchedAt: Date())
    }

    @Test func a_window_shows_its_rows_at_their_positions_and_loading_rows_around_them() {
        var rows = ListRows()
        #expect(rows.count == 0 && !rows.isKnown(related: false))
        rows.window = ListWindow(
            range: 10..<13, rows: [.init(position: 10, entity: car(1)), .init(position: 11, entity: nil)],
            state: ListState(totalCount: 40, fetchedCount: 11))
        #expect(rows.count == 40 && rows.isKnown(related: false))
        #expect(rows.row(at: 10)?.shown?.key == car(1).key)
        // (not cached yet, inside the window and outside it: a row to draw as loading)
        #expect(rows.row(at: 11)?.shown == nil && rows.row(at: 12)?.shown == nil && rows.row(at: 30)?.position == 30)
        #expect(rows.position(of: car(1).key) == 10)
        #expect(rows.windowCovers(10..<13) && !rows.windowCovers(9..<12))
    }

    @Test func every_row_held_shows_through_the_filters_matches() {
        var rows = ListRows()
        rows.all = (1...4).map { ListRow(position: $0 - 1, shown: car($0), link: nil) }
        #expect(rows.count == 4 && rows.isKnown(related: true))
        rows.matches = [1, 3]
        #expect(rows.count == 2)
        #expect(rows.row(at: 0)?.shown?.key == car(2).key && rows.row(at: 1)?.shown?.key == car(4).key)
        #expect(rows.row(at: 2) == nil)
        #expect(rows.position(of: car(4).key) == 1 && rows.position(of: car(1).key) == nil)
    }

    @Test func cached_matches_show_only_until_the_services_answer_has_a_state() {
        var rows = ListRows()
        rows.provisional = [ListRow(position: 0, shown: car(7), link: nil)]
        #expect(rows.count == 1 && rows.row(at: 0)?.shown?.key == car(7).key && rows.isKnown(related: false))
        // When the filtered list's first page arrives, it is what shows
        rows.window = ListWindow(range: 0..<1, rows: [], state: ListState(totalCount: 0, isComplete: true))
        #expect(rows.shownProvisional == nil && rows.count == 0)
    }

    @Test func new_rows_not_yet_made_by_the_service_are_named_by_their_temporary_keys() {
        var rows = ListRows()
        let made = EntityKey.temporary(in: "Car")
        rows.all = [
            ListRow(position: 0, shown: car(1), link: nil),
            ListRow(
                position: 1,
                shown: CachedEntity(
                    key: made, entitySet: "Car", type: nil, properties: [], etag: nil, fetchedAt: Date()),
                link: nil),
        ]
        #expect(rows.temporaryAnchors == [made])
    }
}
