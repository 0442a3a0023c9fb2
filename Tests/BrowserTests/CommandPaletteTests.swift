import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// `:` — the command line: completion, history, every key action as a command, and the commands with no key.
@MainActor
extension ScreenSnapshotTests {
    /// Types `:`, then `text` one character at a time, then `last`.
    func command(_ app: BrowserApp, _ text: String, then last: Key = .enter) -> Bool {
        app.handle([.key(.char(":"))] + text.map { .key(.char($0)) } + [.key(last)])
    }

    @Test func a_set_name_opens_its_list_and_tab_completes_commands() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 16))
        // `:Car` opens the cars, with People behind it
        #expect(command(app, "Car"))
        #expect(terminal.lastFrame[0].hasPrefix("People › Cars"), "\(terminal.lastFrame[0])")
        // `:ou` Tab completes to outbox, Enter opens it
        #expect(command(app, "ou", then: .tab))
        #expect(terminal.lastFrame.last?.hasPrefix(":outbox") == true, "\(terminal.lastFrame.last ?? "")")
        _ = app.handle([.key(.enter)])
        #expect(app.stack.top is OutboxController)
        // While the line is open its completions show above it
        _ = app.handle([.key(.escape), .key(.char(":")), .key(.char("o"))])
        let frame = terminal.lastFrame.joined(separator: "\n")
        #expect(frame.contains(" open ") && frame.contains(" outbox "), "\(frame)")
        _ = app.handle([.key(.escape)])
        #expect(!(terminal.lastFrame.last ?? "").hasPrefix(":"))
    }

    @Test func quit_and_key_commands_do_what_their_keys_do() throws {
        let (app, _, _) = try seededApp()
        #expect(command(app, "help"))
        #expect(app.stack.top is HelpController)
        #expect(command(app, "back"))
        #expect(!(app.stack.top is HelpController))
        #expect(!command(app, "q"), "`:q` quits")
    }

    @Test func history_brings_back_earlier_lines() throws {
        let (app, terminal, _) = try seededApp()
        _ = command(app, "log")
        _ = command(app, "back")
        _ = app.handle([.key(.char(":")), .key(.up)])
        #expect(terminal.lastFrame.last?.hasPrefix(":back") == true)
        _ = app.handle([.key(.up)])
        #expect(terminal.lastFrame.last?.hasPrefix(":log") == true)
        _ = app.handle([.key(.down), .key(.down)])
        #expect(terminal.lastFrame.last?.hasPrefix(": ") == true, "\(terminal.lastFrame.last ?? "")")
    }

    @Test func where_shows_and_copies_the_path_and_nonsense_is_answered() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 100, rows: 12))
        _ = app.handle([.key(.end), .key(.enter)])
        _ = command(app, "where")
        #expect(terminal.copied.last == "People › Samson, Bob")
        #expect(terminal.lastFrame.last?.contains("Here: People › Samson, Bob (copied)") == true)
        _ = command(app, "frobnicate now")
        #expect(terminal.lastFrame.last?.contains("Not a command: “frobnicate now”") == true)
        // the answer goes with the next key
        _ = app.handle([.key(.down)])
        #expect(terminal.lastFrame.last?.contains("Not a command") == false)
    }

    @Test func chart_y_by_x_charts_what_it_names_and_says_what_it_cannot() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 120, rows: 24))
        _ = app.handle([.key(.escape)])  // back on the Explorer's maintenance
        _ = command(app, "chart cost by serviceDate")
        #expect(terminal.lastFrame[0].contains("cost by serviceDate"), "\(terminal.lastFrame[0])")
        _ = app.handle([.key(.escape)])
        _ = command(app, "chart speed by serviceDate")
        #expect(
            terminal.lastFrame.last?.contains("Maintenance has no number called “speed”; its numbers: mileage, cost")
                == true, "\(terminal.lastFrame.last ?? "")")
    }

    @Test func filter_applies_to_the_list_and_a_typed_filter_keeps_its_colon() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 12))
        _ = command(app, "filter samson")
        #expect(terminal.lastFrame.joined().contains("Samson, Bob"))
        #expect(terminal.lastFrame.last?.contains("filter “samson”") == true, "\(terminal.lastFrame.last ?? "")")
        // While a filter is typed, `:` is part of it, not the command line
        _ = app.handle([.key(.char("/")), .key(.char(":"))])
        #expect(!app.palette.isOpen)
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func a_click_selects_a_double_click_opens_and_a_breadcrumb_click_goes_back() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 12))
        // Row 0 is the breadcrumb, row 1 the header: the list's first row is on screen row 2
        let rows = terminal.lastFrame
        let bob = try #require(rows.firstIndex { $0.contains("Samson, Bob") })
        _ = app.handle([.key(.click(row: bob, column: 5))])
        #expect(terminal.lastFrame[bob].hasPrefix("▌"), "\(terminal.lastFrame)")
        _ = app.handle([.key(.click(row: bob, column: 5)), .key(.click(row: bob, column: 5))])
        #expect(terminal.lastFrame[0].hasPrefix("People › Samson, Bob"), "\(terminal.lastFrame[0])")
        // Into a car, then a click on "People" in the breadcrumb: back to the root
        _ = app.handle([.key(.enter)])
        #expect(app.stack.controllers.count == 3)
        _ = app.handle([.key(.click(row: 0, column: 2))])
        #expect(app.stack.controllers.count == 1)
        #expect(terminal.lastFrame[0].hasPrefix("People "))
        // A click on the status line or on nothing changes nothing
        _ = app.handle([.key(.click(row: 11, column: 3)), .key(.click(row: 10, column: 3))])
        #expect(app.stack.controllers.count == 1)
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func theme_switches_the_colours_and_names_the_choices() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 100, rows: 12))
        _ = command(app, "theme hi", then: .tab)
        #expect(terminal.lastFrame.last?.hasPrefix(":theme high-contrast") == true)
        _ = app.handle([.key(.enter)])
        #expect(terminal.theme == .highContrast)
        #expect(terminal.lastFrame.last?.contains("Theme: high-contrast") == true)
        _ = command(app, "theme neon")
        #expect(terminal.theme == .highContrast)
        #expect(
            terminal.lastFrame.last?.contains("No theme “neon”: dark, light, high-contrast, monochrome.") == true,
            "\(terminal.lastFrame.last ?? "")")
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func export_writes_the_list_on_screen_when_it_is_all_cached() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 120, rows: 24))
        _ = app.handle([.key(.escape)])  // the Explorer's eight services, all cached
        let directory = NSTemporaryDirectory() + "palette-export-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = command(app, "export \(directory)/services.csv")
        #expect(terminal.lastFrame.last?.contains("Wrote 8 Maintenance to") == true, "\(terminal.lastFrame.last ?? "")")
        let csv = try String(contentsOfFile: directory + "/services.csv", encoding: .utf8)
        let lines = csv.split(separator: "\r\n")
        #expect(lines.count == 9 && lines[0].hasPrefix("maintenanceID,"), "\(csv)")
        #expect(csv.contains("Service 8"))
        _ = command(app, "export \(directory)/services.json")
        let json = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: directory + "/services.json")))
        #expect((json as? [[String: Any]])?.count == 8)
        _ = command(app, "export \(directory)/services.txt")
        #expect(terminal.lastFrame.last?.contains("Name the file .csv or .json") == true)
    }
}

/// `[keys]` in the config file (issue 15): keys added to an action, movement keys bound, default keys unbound.
@MainActor
extension ScreenSnapshotTests {
    @Test func bound_keys_move_and_act_and_unbound_keys_do_nothing() throws {
        let (app, terminal, _) = try seededApp()
        #expect(KeyBindings.key(named: "pagedown") == .pageDown && KeyBindings.key(named: "F5") == .function(5))
        #expect(KeyBindings.key(named: "space") == .char(" ") && KeyBindings.key(named: "ctrl-q") == .ctrl("q"))
        #expect(KeyBindings.key(named: "downward") == nil && KeyBindings.key(named: "") == nil)
        app.bind(Keymap(bound: [.char("n"): .down, .char("x"): .char("q")], unbound: [.char("q"), .char("j")]))
        func status() -> String { terminal.lastFrame.last ?? "" }
        #expect(status().contains("1 of "), "\(status())")
        // n moves down as the arrow does; j, unbound, does nothing; q, unbound, does not quit
        #expect(app.handle([.key(.char("n"))]))
        #expect(status().contains("2 of "), "\(status())")
        #expect(app.handle([.key(.char("j")), .key(.char("q"))]))
        #expect(status().contains("2 of "), "\(status())")
        // Typed into the filter, bound and unbound keys are letters
        #expect(app.handle([.key(.char("/")), .key(.char("q")), .key(.char("n"))]))
        #expect(terminal.lastFrame.contains { $0.hasPrefix("/qn") }, "\(terminal.lastFrame)")
        _ = app.handle([.key(.escape), .key(.escape)])
        // x quits, standing for q
        #expect(!app.handle([.key(.char("x"))]))
    }
}
