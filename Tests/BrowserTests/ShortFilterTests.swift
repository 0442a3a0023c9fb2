import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Issue 17: on a list not wholly cached, one or two letters filter the rows already cached at once, without a
/// request that the next keystroke would supersede; from three letters on the service is asked with `$filter`.
extension ListExportTests {
    @Test func a_short_filter_searches_the_cached_rows_and_three_letters_ask_the_service() async throws {
        let (app, terminal, cache, intents) = try app()
        func filtered() -> [ScreenContent] {
            intents.shown.map(\.0).filter {
                if case .list(let request) = $0 {
                    request.options.filter != nil || request.options.search != nil
                } else {
                    false
                }
            }
        }
        _ = app.handle([.key(.char("/")), .key(.char("t")), .key(.char("2"))])
        // Only Last2 among the three cached rows; nothing asked of the service
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("Last2, First2") && !frame.contains("Last1, First1"), "\(frame)")
        #expect(terminal.lastFrame.last?.contains("in the rows cached") == true, "\(terminal.lastFrame.last ?? "")")
        #expect(filtered().isEmpty, "\(filtered())")
        // A third letter asks the service, and the cached rows that match show while it answers
        _ = app.handle([.key(.backspace), .key(.backspace), .key(.char("s")), .key(.char("t")), .key(.char("2"))])
        let asked = try #require(filtered().last)
        guard case .list(let request) = asked else { return }
        // (the built-in service searches people itself: `$search`, not a filter on the names)
        #expect(request.options.search == "st2", "\(request.options)")
        #expect(terminal.lastFrame.last?.contains("in the rows cached") == false)
        #expect(terminal.lastFrame.joined(separator: "\n").contains("Last2, First2"), "\(terminal.lastFrame)")
        #expect(
            terminal.lastFrame.last?.contains("1 cached match · asking the service") == true,
            "\(terminal.lastFrame.last ?? "")")
        // When the service answers (Last2, and Last7 which the list had not reached), its answer replaces them
        try await cache.write { session in
            try session.writeListPage(
                request.key, offset: 0, entityKeys: ["Person(2)", "Person(7)"], totalCount: 2, nextLink: nil,
                isLastPage: true, at: Date())
        }
        #expect(
            try await eventually { terminal.lastFrame.joined(separator: "\n").contains("Last7, First7") },
            "\(terminal.lastFrame)")
        #expect(terminal.lastFrame.last?.contains("asking the service") == false)
    }
}
