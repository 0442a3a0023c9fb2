import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// A service that does not filter or sort by some properties (`Capabilities.FilterRestrictions`,
/// `SortRestrictions`, `sap:filterable`, `sap:sortable`; issue 33) is never asked to: what it refuses is said in a
/// sentence before any request, and what can be done here (a complete list sorts and filters its own rows) still is.
@MainActor
extension ScreenSnapshotTests {
    /// The People list of a service whose `Person` set has `restrict` applied, on a cache holding three people of
    /// `total` (500: the list is not wholly cached, so the service sorts and filters it; nil: no list of people is
    /// cached at all).
    func restrictedApp(
        total: Int?, set name: String = "Person", _ restrict: (inout EntitySet) -> Void
    ) throws -> (BrowserApp, HeadlessTerminal, RecordingIntents) {
        var model = CarDealerModel.model
        for container in model.containers.indices {
            for set in model.containers[container].entitySets.indices
            where model.containers[container].entitySets[set].name == name {
                restrict(&model.containers[container].entitySets[set])
            }
        }
        let (_, _, cache) = try seededApp()
        let people = ListRequest(
            entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
        if let total {
            try cache.writeBlocking {
                try $0.writeListPage(
                    people.key, offset: 0, entityKeys: ["Person(2)", "Person(3)", "Person(1)"], totalCount: total,
                    nextLink: nil, isLastPage: total == 3, at: Self.fixedNow)
            }
        }
        let intents = RecordingIntents()
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, writes: nil, model: model, profile: DisplayProfile.carDealer!,
            now: { Self.fixedNow }, timeZone: TimeZone(identifier: "UTC")!)
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 180, rows: 8),
            root: EntityListController(environment: environment, entitySet: name))
        return (app, terminal, intents)
    }

    /// What the list last asked the fetcher for.
    func lastAsked(_ intents: RecordingIntents) -> ListRequest? {
        guard case .list(let request)? = intents.shown.last?.0 else { return nil }
        return request
    }

    @Test func s_passes_over_a_column_the_service_does_not_sort_by_and_says_so() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) { $0.nonSortable = ["lastName"] }
        _ = app.handle([.key(.char("s"))])
        // Name (lastName, firstName) is passed over: Customer since, ascending, is asked of the service
        #expect(terminal.lastFrame[1].contains("Customer sin ▲"), "\(terminal.lastFrame[1])")
        #expect(terminal.lastFrame.last?.contains("The service does not sort People by lastName.") == true)
        #expect(lastAsked(intents)?.options.orderBy.map(\.property) == ["createDate"])
        // :sort names it too, and nothing is asked
        let before = intents.shown.count
        _ = app.handle([.key(.char(":"))] + "sort name".map { .key(.char($0)) } + [.key(.enter)])
        #expect(terminal.lastFrame.last?.contains("The service does not sort People by lastName.") == true)
        #expect(!terminal.lastFrame[1].contains("Name ▲"))
        #expect(intents.shown.count >= before)
        #expect(lastAsked(intents)?.options.orderBy.map(\.property) == ["createDate"])
        // (the service was never asked for the Name column's order, either way)
        #expect(
            !intents.shown.contains { shown in
                guard case .list(let request) = shown.0 else { return false }
                return request.options.orderBy.map(\.property) == ["lastName", "firstName"]
            })
    }

    @Test func a_complete_list_sorts_here_by_what_the_service_does_not_sort_by() throws {
        let (app, terminal, _) = try restrictedApp(total: 3) { $0.isSortable = false }
        _ = app.handle([.key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("Name ▲"))
        #expect(names(terminal) == ["O'Neil, Renée", "Samson, Bob", "Ærøskøbing-Łódź, Zoë"])
    }

    @Test func a_filter_the_service_does_not_take_searches_the_rows_here_and_says_so() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) {
            $0.nonFilterable = ["lastName", "firstName"]
            $0.isSearchable = nil  // (the filter's fields, not the service's own search)
        }
        _ = app.handle([.key(.char("/"))] + "samson".map { .key(.char($0)) } + [.key(.enter)])
        // No $filter goes to the service; the cached rows answer
        #expect(
            !intents.shown.contains { shown in
                guard case .list(let request) = shown.0 else { return false }
                return request.options.filter != nil
            })
        #expect(names(terminal) == ["Samson, Bob"])
        #expect(
            terminal.lastFrame.last?.contains(
                "filter “samson” in the rows cached: the service does not filter People by lastName or firstName")
                == true,
            "\(terminal.lastFrame.last ?? "")")
    }

    @Test func a_filter_goes_to_the_service_on_the_fields_it_filters_by() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) {
            $0.nonFilterable = ["firstName"]
            $0.isSearchable = nil  // (the filter's fields, not the service's own search)
        }
        _ = app.handle([.key(.char("/"))] + "samson".map { .key(.char($0)) } + [.key(.enter)])
        let filter = try #require(lastAsked(intents)?.options.filter)
        #expect(filter.contains("lastName") && !filter.contains("firstName"), "\(filter)")
        // And the status line says what was not searched
        #expect(
            terminal.lastFrame.last?.contains("(not in firstName: the service does not filter by it)") == true,
            "\(terminal.lastFrame.last ?? "")")
    }

    @Test func a_set_read_only_filtered_asks_for_the_filter_it_needs_and_nothing_goes_until_it_is_on() throws {
        let (app, terminal, intents) = try restrictedApp(total: nil, set: "Car") {
            $0.requiresFilter = true
            $0.requiredFilterProperties = ["make"]
        }
        // Nothing is asked; the list says what it needs
        #expect(!intents.shown.contains { if case .list = $0.0 { true } else { false } })
        let screen = terminal.lastFrame.joined(separator: "\n")
        #expect(screen.contains("only filtered by make: type :filter make = VALUE."), "\(screen)")
        // A filter that does not name it is not enough
        _ = app.handle([.key(.char(":"))] + "filter model = Focus".map { .key(.char($0)) } + [.key(.enter)])
        #expect(!intents.shown.contains { if case .list = $0.0 { true } else { false } })
        // One that does is asked of the service
        _ = app.handle([.key(.char(":"))] + "filter make = Ford".map { .key(.char($0)) } + [.key(.enter)])
        #expect(lastAsked(intents)?.options.filter == "make eq 'Ford'")
        // And cleared, the list asks nothing more and says so again
        let asked = intents.shown.count
        _ = app.handle([.key(.char(":"))] + "filter".map { .key(.char($0)) } + [.key(.enter)])
        #expect(intents.shown.count == asked)
        #expect(terminal.lastFrame.joined().contains("only filtered by make"))
    }

    @Test func a_column_sorted_one_way_only_is_sorted_that_way_and_the_other_is_refused() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) { $0.descendingOnly = ["lastName"] }
        // The first column (Name: lastName, firstName) goes straight to descending
        _ = app.handle([.key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("Name ▼"), "\(terminal.lastFrame[1])")
        #expect(lastAsked(intents)?.options.orderBy.first == .init("lastName", descending: true))
        // And :sort name (ascending) says why not
        _ = app.handle([.key(.char(":"))] + "sort name".map { .key(.char($0)) } + [.key(.enter)])
        #expect(
            terminal.lastFrame.last?.contains("The service sorts People by lastName descending only.") == true,
            "\(terminal.lastFrame.last ?? "")")
        let (ascending, ascendingTerminal, _) = try restrictedApp(total: 500) { $0.ascendingOnly = ["lastName"] }
        // Ascending only: the second press moves on to the next column
        _ = ascending.handle([.key(.char("s")), .key(.char("s"))])
        #expect(ascendingTerminal.lastFrame[1].contains("Customer sin ▲"), "\(ascendingTerminal.lastFrame[1])")
    }

    @Test func slash_asks_a_set_the_service_searches_by_its_own_search_and_filters_the_fields_once_that_fails() throws {
        let (app, terminal, intents) = try restrictedApp(total: 500) { $0.isSearchable = true }
        _ = app.handle([.key(.char("/"))] + "samson".map { .key(.char($0)) } + [.key(.enter)])
        // The service's search is asked, not a $filter on the fields
        let asked = try #require(lastAsked(intents))
        #expect(asked.options.search == "samson" && asked.options.filter == nil)
        #expect(terminal.lastFrame.last?.contains("filter “samson” (searched by the service)") == true)
        // A failure an earlier session left on the same search is not this one's answer: nothing changes
        try app.environment.testCache.writeBlocking {
            try $0.setListError(asked.key, message: "HTTP 503: busy", at: Self.fixedNow.addingTimeInterval(-60))
        }
        _ = app.handle([.key(.down)])
        #expect(lastAsked(intents)?.options.search == "samson")
        // When this read fails (a service that says it searches but refuses $search), the fields are filtered
        try app.environment.testCache.writeBlocking {
            try $0.setListError(
                asked.key, message: "HTTP 501: not implemented", at: Self.fixedNow.addingTimeInterval(1))
        }
        _ = app.handle([.key(.down)])
        let then = try #require(lastAsked(intents))
        #expect(then.options.search == nil)
        #expect(then.options.filter?.contains("lastName") == true, "\(then.options.filter ?? "")")
        #expect(
            terminal.lastFrame.last?.contains("The service's search failed (HTTP 501: not implemented)") == true,
            "\(terminal.lastFrame.last ?? "")")
        // And the next search of that set this session goes straight to the fields
        _ = app.handle([.key(.escape), .key(.char("/"))] + "bob".map { .key(.char($0)) } + [.key(.enter)])
        #expect(lastAsked(intents)?.options.search == nil)
        #expect(lastAsked(intents)?.options.filter?.contains("bob") == true)
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func a_set_that_is_read_only_filtered_takes_the_services_own_search_as_its_filter() throws {
        let (app, terminal, intents) = try restrictedApp(total: nil, set: "Car") {
            $0.requiresFilter = true
            $0.isSearchable = true
        }
        #expect(terminal.lastFrame.joined().contains("only filtered"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.char("/"))] + "ford".map { .key(.char($0)) } + [.key(.enter)])
        #expect(lastAsked(intents)?.options.search == "ford")
        #expect(!terminal.lastFrame.joined().contains("only filtered"), "\(terminal.lastFrame)")
    }
}
