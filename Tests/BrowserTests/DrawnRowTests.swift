import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// A list copies a row drawn in the last frame when nothing it shows changed; what it draws must be what a
/// fresh frame draws, and a row whose entity changed must be drawn again.
@MainActor
extension ScreenSnapshotTests {
    @Test func a_frame_of_copied_rows_is_the_frame_a_fresh_screen_draws() async throws {
        // Given people with wide and combining characters in their names, on a narrow terminal that cuts them
        let size = TerminalSize(columns: 23, rows: 8)
        let (app, terminal, cache) = try seededApp(size: size)
        try rename(cache, person: 3, first: "山田太郎", last: "e\u{301}clair 山田")
        #expect(try await eventually { self.shown(terminal).contains("山田") }, "\(shown(terminal))")
        let controller = try #require(app.stack.top as? EntityListController)

        // When the cursor goes down twice and back to the top (each frame after the first copies rows)
        _ = app.handle([.key(.down)])
        let copied = controller.drawnRows
        _ = app.handle([.key(.down), .key(.up), .key(.up)])

        // Then the rows were copied, and the frame is the first frame of a fresh screen on the same cache (which
        // had nothing to copy)
        #expect(!copied.isEmpty)
        #expect(controller.rowsCopied >= 3 * copied.count - 3, "copied \(controller.rowsCopied)")
        #expect(controller.drawnRows.keys.sorted() == copied.keys.sorted())
        let (_, freshTerminal, _) = try seededApp(size: size, cache: cache)
        #expect(terminal.lastFrame == freshTerminal.lastFrame, "\(shown(terminal))\n---\n\(shown(freshTerminal))")
    }

    @Test func a_row_whose_entity_changed_is_drawn_again() async throws {
        // Given the people list drawn, the cursor moved once (rows copied from then on)
        let (app, terminal, cache) = try seededApp()
        _ = app.handle([.key(.down)])
        #expect(shown(terminal).contains("Samson, Bob"))

        // When Bob's name changes in the cache, and the cursor moves again
        try rename(cache, person: 1, first: "Robert", last: "Samson")
        #expect(try await eventually { self.shown(terminal).contains("Samson, Robert") }, "\(shown(terminal))")
        _ = app.handle([.key(.up)])

        // Then the new name stays, the old one is gone
        #expect(shown(terminal).contains("Samson, Robert"))
        #expect(!shown(terminal).contains("Samson, Bob"))
    }
}
