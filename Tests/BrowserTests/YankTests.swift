import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// `y` copies the selected row's name, `Y` its entity as JSON (issue 15), through the terminal's clipboard.
@MainActor
extension ScreenSnapshotTests {
    @Test func y_copies_the_rows_name_and_Y_the_entity_as_json() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 100, rows: 12))
        _ = app.handle([.key(.char("y"))])
        #expect(terminal.copied == ["Ærøskøbing-Łódź, Zoë"])
        #expect(terminal.lastFrame.last?.contains("Copied “Ærøskøbing-Łódź, Zoë”") == true, "\(terminal.lastFrame)")
        _ = app.handle([.key(.down), .key(.char("Y"))])
        let json = try #require(terminal.copied.last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["lastName"] as? String == "O'Neil" && object["personID"] as? Int == 3)
        #expect(terminal.lastFrame.last?.contains("Copied Person(3) as JSON") == true)
    }

    @Test func y_answers_the_delete_question_and_copies_nothing_then() throws {
        let (app, terminal, _) = try seededApp(writes: RecordingWrites())
        _ = app.handle([.key(.char("x")), .key(.char("y"))])
        #expect(terminal.copied.isEmpty)
    }
}
