import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// `s` sorts a list by its columns in turn (issue 15): ascending, descending, then the profile's order; the
/// header shows which. A complete list sorts here; one that is not asks the service with `$orderby`.
@MainActor
extension ScreenSnapshotTests {
    /// The names on the list's rows, top to bottom.
    func names(_ terminal: HeadlessTerminal) -> [String] {
        terminal.lastFrame.dropFirst(2).compactMap { line -> String? in
            let words = line.dropFirst().split(separator: " ")
            guard words.count >= 2, words[0].hasSuffix(",") else { return nil }
            return words[0] + " " + words[1]
        }
    }

    @Test func s_sorts_a_complete_list_here_by_each_column_in_turn() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 8))
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "O'Neil, Renée", "Samson, Bob"])
        _ = app.handle([.key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("Name ▲"))
        #expect(names(terminal) == ["O'Neil, Renée", "Samson, Bob", "Ærøskøbing-Łódź, Zoë"])
        _ = app.handle([.key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("Name ▼"))
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "Samson, Bob", "O'Neil, Renée"])
        // then Customer since, both ways, then the profile's order again
        _ = app.handle([.key(.char("s")), .key(.char("s"))])
        #expect(terminal.lastFrame[1].contains("Customer sin ▼"))  // shortened to keep its mark
        _ = app.handle([.key(.char("s"))])
        #expect(!terminal.lastFrame[1].contains("▲") && !terminal.lastFrame[1].contains("▼"))
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "O'Neil, Renée", "Samson, Bob"])
    }

    @Test func colon_sort_takes_a_column_by_title_or_property_and_a_direction() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 8))
        func sort(_ text: String) {
            _ = app.handle([.key(.char(":"))] + "sort \(text)".map { .key(.char($0)) } + [.key(.enter)])
        }
        sort("name desc")
        #expect(terminal.lastFrame[1].contains("Name ▼"))
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "Samson, Bob", "O'Neil, Renée"])
        // A property the column shows names it too
        sort("firstName")
        #expect(terminal.lastFrame[1].contains("Name ▲"))
        sort("Customer since desc")
        #expect(terminal.lastFrame[1].contains("Customer sin ▼"))
        sort("wheels")
        #expect(terminal.lastFrame.last?.contains("No column “wheels” here: Name, Customer since") == true)
        sort("name sideways")
        #expect(terminal.lastFrame.last?.contains("Not a command") == true)
    }

    @Test func a_sorted_list_keeps_its_filter_and_the_filter_its_sort() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 8))
        _ = app.handle([.key(.char("s")), .key(.char("s"))])  // Name ▼
        _ = app.handle([.key(.char("/")), .key(.char("o")), .key(.enter)])
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "Samson, Bob", "O'Neil, Renée"])
        _ = app.handle([.key(.char("/")), .key(.char("n")), .key(.enter)])  // "on"
        #expect(names(terminal) == ["Samson, Bob"])
        _ = app.handle([.key(.escape)])
        #expect(names(terminal) == ["Ærøskøbing-Łódź, Zoë", "Samson, Bob", "O'Neil, Renée"])
    }

    @Test func s_sorts_a_persons_cars_through_their_link_entities() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 8))
        _ = app.handle([.key(.end), .key(.enter)])  // Bob's cars: Explorer, Mustang
        _ = app.handle([.key(.char("s")), .key(.char("s")), .key(.char("s")), .key(.char("s"))])  // Model ▼
        #expect(terminal.lastFrame[1].contains("Model ▼"))
        let rows = terminal.lastFrame.dropFirst(2).prefix(2)
        #expect(rows.first?.contains("Mustang") == true && rows.last?.contains("Explorer") == true, "\(rows)")
    }

    @Test func a_list_not_wholly_cached_is_sorted_by_the_service() throws {
        let (app, _, cache) = try seededApp(size: TerminalSize(columns: 80, rows: 8))
        let people = ListRequest(
            entitySet: "Person", orderBy: [.init("lastName"), .init("firstName"), .init("personID")])
        try cache.writeBlocking {
            try $0.writeListPage(
                people.key, offset: 0, entityKeys: ["Person(2)", "Person(3)", "Person(1)"], totalCount: 500,
                nextLink: nil, isLastPage: false, at: Self.fixedNow)
        }
        _ = app.handle([.key(.char("r"))])  // (any key: the list reads its state again on the next frame)
        _ = app.handle([.key(.char("s")), .key(.char("s"))])
        let intents = try #require(app.environment.intents as? RecordingIntents)
        guard case .list(let asked)? = intents.shown.last?.0 else {
            Issue.record("the list told the fetcher nothing")
            return
        }
        #expect(asked.options.orderBy == [.init("lastName", descending: true), .init("firstName", descending: true)])
    }
}
