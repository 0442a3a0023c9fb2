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
    @Test func a_short_filter_searches_the_cached_rows_and_three_letters_ask_the_service() throws {
        let (app, terminal, _, intents) = try app()
        func filtered() -> [ScreenContent] {
            intents.shown.map(\.0).filter {
                if case .list(let request) = $0 { request.options.filter != nil } else { false }
            }
        }
        _ = app.handle([.key(.char("/")), .key(.char("t")), .key(.char("2"))])
        // Only Last2 among the three cached rows; nothing asked of the service
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains("Last2, First2") && !frame.contains("Last1, First1"), "\(frame)")
        #expect(terminal.lastFrame.last?.contains("in the rows cached") == true, "\(terminal.lastFrame.last ?? "")")
        #expect(filtered().isEmpty, "\(filtered())")
        // A third letter asks the service
        _ = app.handle([.key(.backspace), .key(.backspace), .key(.char("s")), .key(.char("t")), .key(.char("8"))])
        let asked = try #require(filtered().last)
        guard case .list(let request) = asked else { return }
        #expect(request.options.filter?.contains("st8") == true, "\(request.options.filter ?? "")")
        #expect(terminal.lastFrame.last?.contains("in the rows cached") == false)
    }
}
