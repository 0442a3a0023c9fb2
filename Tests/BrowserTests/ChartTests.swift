import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import Terminal
import Testing

@testable import Browser

/// `c` on the Explorer's service history: mileage over service date in braille, its point and the list's cursor
/// one record.
@MainActor
extension ScreenSnapshotTests {
    /// The seeded app with a history of eight services for the Explorer (PersonCar 1), on its chart.
    func chartedApp(_ size: TerminalSize, braille: Bool = true) throws -> (BrowserApp, HeadlessTerminal) {
        let (app, terminal, cache) = try seededApp(size: size)
        app.environment.canShowBraille = braille
        let day: Int64 = 86_400_000
        try seedMaintenance(
            cache, link: 1,
            records: (0..<8).map { index in
                let mileage = [1_200, 9_800, 16_743, 21_000, 30_655, 31_900, 44_010, 52_300][index]
                return (
                    20 + index, 1_136_419_200_000 + Int64(index) * 120 * day, "Service \(index + 1)", mileage,
                    "\(100 + index * 40).50"
                )
            }, at: Self.fixedNow.addingTimeInterval(-60))
        // Samson, Bob → Ford Explorer → its maintenance (latest first) → chart
        _ = app.handle([.key(.end), .key(.enter), .key(.enter), .key(.char("c"))])
        return (app, terminal)
    }

    @Test func a_chart_at_80_by_24() throws {
        let (_, terminal) = try chartedApp(TerminalSize(columns: 80, rows: 24))
        assertSnapshot(terminal.lastFrame, named: "chart-80x24")
        let braille = terminal.lastFrame.joined().unicodeScalars.filter { (0x2801...0x28FF).contains($0.value) }
        #expect(braille.count > 20)
    }

    @Test func a_chart_at_40_by_12() throws {
        let (_, terminal) = try chartedApp(TerminalSize(columns: 40, rows: 12))
        assertSnapshot(terminal.lastFrame, named: "chart-40x12")
    }

    @Test func the_charts_point_and_the_lists_cursor_are_one_record() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 80, rows: 24))
        // The list's cursor was on the latest service (listed first): the chart highlights it
        #expect(terminal.lastFrame.joined().contains("52,300"))
        // ← moves to the service before; back on the list, the cursor is on that record
        _ = app.handle([.key(.left), .key(.escape)])
        let selected = terminal.lastFrame.first { $0.hasPrefix("▌") }
        #expect(selected?.contains("Service 7") == true, "\(terminal.lastFrame)")
        // and Enter on a point opens its record
        _ = app.handle([.key(.char("c")), .key(.home), .key(.enter)])
        #expect(terminal.lastFrame[0].contains("Service 1"), "\(terminal.lastFrame[0])")
    }

    @Test func a_list_without_a_date_and_a_number_says_so() throws {
        let (app, terminal, _) = try seededApp(size: TerminalSize(columns: 80, rows: 12))
        _ = app.handle([.key(.char("c"))])  // People, whose rows open cars: no number to plot either way
        #expect(terminal.lastFrame.last?.contains("Nothing to chart here") == true, "\(terminal.lastFrame)")
    }

    @Test func records_that_arrive_while_the_chart_is_open_fill_it_in() async throws {
        // Given the Mustang's chart opened before its service history is cached
        let (app, terminal, cache) = try seededApp(size: TerminalSize(columns: 80, rows: 24))
        _ = app.handle([.key(.end), .key(.enter), .key(.down), .key(.enter), .key(.char("c"))])
        #expect(terminal.lastFrame.joined().contains("No mileage by serviceDate"), "\(terminal.lastFrame)")
        // When the fetcher writes it
        try seedMaintenance(
            cache, link: 2,
            records: [(40, 1_136_419_200_000, "First", 1_000, "10"), (41, 1_167_955_200_000, "Second", 9_000, "20")])
        // Then the chart draws it without a key pressed
        let drawn = try await eventually {
            terminal.lastFrame.dropLast().joined().unicodeScalars.contains { (0x2801...0x28FF).contains($0.value) }
        }
        #expect(drawn, "\(terminal.lastFrame.joined(separator: "\n"))")
    }

    @Test func tab_turns_to_cost_per_service_with_its_running_total() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 80, rows: 24))
        _ = app.handle([.key(.tab)])
        assertSnapshot(terminal.lastFrame, named: "chart-cost-80x24")
        let frame = terminal.lastFrame.joined(separator: "\n")
        // The eight costs add up to 8 × 100.50 + 40 × (0 + … + 7) = 1,924.00, the right scale's top
        #expect(frame.contains("Σ 1,924.00"), "\(frame)")
        #expect(frame.contains("cost by serviceDate") || frame.contains("total by serviceDate"))
        // The highlighted record (the latest) shows its cost and the total up to it
        #expect(frame.contains("380.50 (Σ 1,924.00)"), "\(frame)")
        _ = app.handle([.key(.left)])
        #expect(terminal.lastFrame.joined().contains("340.50 (Σ 1,543.50)"))
        // Tab again comes back to mileage
        _ = app.handle([.key(.tab)])
        #expect(terminal.lastFrame[0].contains("mileage by serviceDate"))
    }

    @Test func a_terminal_without_braille_gets_the_chart_in_ascii() throws {
        let (_, chartTerminal) = try chartedApp(TerminalSize(columns: 80, rows: 24), braille: false)
        assertSnapshot(chartTerminal.lastFrame, named: "chart-ascii-80x24")
        let text = chartTerminal.lastFrame.dropLast().joined()
        #expect(!text.unicodeScalars.contains { (0x2800...0x28FF).contains($0.value) })
        #expect(!text.contains("│") && !text.contains("●"))
        #expect(text.filter { $0 == "*" }.count > 20)
    }

    @Test func c_on_a_car_charts_its_maintenance_with_the_list_under_it() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 80, rows: 24))
        _ = app.handle([.key(.escape), .key(.escape)])  // back on Bob's cars, the Explorer selected
        #expect(terminal.lastFrame[0].hasPrefix("People › Samson, Bob "), "\(terminal.lastFrame[0])")
        _ = app.handle([.key(.char("c"))])
        #expect(terminal.lastFrame[0].contains("Ford Explorer › mileage by serviceDate"), "\(terminal.lastFrame[0])")
        // Esc: the Explorer's maintenance, then the cars
        _ = app.handle([.key(.escape)])
        #expect(terminal.lastFrame.joined().contains("Service 8"))
    }
}

@MainActor
extension ScreenSnapshotTests {
    @Test func a_narrow_terminal_scrolls_columns_sideways_instead_of_losing_them() throws {
        let (app, terminal) = try chartedApp(TerminalSize(columns: 40, rows: 16))
        _ = app.handle([.key(.escape)])  // the Explorer's maintenance: Date, Description, Mileage, Cost
        let before = terminal.lastFrame[1]
        #expect(!before.contains("Cost") && before.hasSuffix("›"), "\(before)")
        _ = app.handle([.key(.char(">"))])
        let after = terminal.lastFrame[1]
        #expect(after.hasPrefix("‹") && after.contains("Mileage") && after.contains("Cost"), "\(after)")
        // Every column in view: > goes no further; < comes back
        _ = app.handle([.key(.char(">")), .key(.char(">")), .key(.char(">"))])
        #expect(terminal.lastFrame[1].contains("Cost"))
        _ = app.handle([.key(.char("<")), .key(.char("<")), .key(.char("<")), .key(.char("<"))])
        #expect(terminal.lastFrame[1] == before)
    }
}

/// The charts a service declares (`UI.Chart`, issue 33): each measure over the first dimension that is a date,
/// titled as the service titles it; a display profile's charts replace them.
@MainActor
@Suite struct DeclaredChartTests {
    func environment(profile: (ServiceModel) -> DisplayProfile) throws -> BrowserEnvironment {
        var model = CarDealerModel.plainModel
        let type = try #require(model.entitySet(named: "Maintenance")?.entityType)
        model.entityTypes[type]?.ui.charts = [
            ChartDefinition(
                title: "Costs over time", chartType: "Line", dimensions: ["description", "serviceDate"],
                measures: ["cost", "description", "mileage"]),
            // (no date to draw along: not offered)
            ChartDefinition(title: "By job", chartType: "Bar", dimensions: ["description"], measures: ["cost"]),
        ]
        return BrowserEnvironment(
            cache: try temporaryCache(), intents: RecordingIntents(), model: model, profile: profile(model))
    }

    @Test func each_measure_over_the_first_date_is_a_chart_titled_as_the_service_titles_it() throws {
        let specs = ChartController.specs(
            of: "Maintenance", in: try environment { DisplayProfile.defaults(for: $0) })
        #expect(
            specs == [
                .init(x: "serviceDate", y: "cost", title: "Costs over time"),
                .init(x: "serviceDate", y: "mileage", title: "Costs over time"),
            ])
    }

    @Test func a_profiles_charts_replace_the_services() throws {
        let carDealer = try #require(DisplayProfile.carDealer)
        let specs = ChartController.specs(of: "Maintenance", in: try environment { _ in carDealer })
        #expect(
            specs == [
                .init(x: "serviceDate", y: "mileage"), .init(x: "serviceDate", y: "cost", cumulative: true),
            ], "\(specs)")
    }
}

/// The chart reads the rows and moves the cursor of whatever list it charts (``ChartedList``), not the list
/// controller itself (issue 33's split): a list of three records of its own drives it here.
@MainActor
@Suite struct ChartedListSeamTests {
    final class ThreeRecords: ChartedList {
        var shownSet: String? = "Maintenance"
        var selectedPosition = 0
        var reloads = 0
        let rows: [ListRow]

        init() {
            // (listed out of date order: the chart puts them in it)
            rows = [(3, 300, 1_700_000_000_000), (1, 100, 1_500_000_000_000), (2, 200, 1_600_000_000_000)]
                .enumerated().map { position, record in
                    ListRow(
                        position: position,
                        shown: CachedEntity(
                            key: EntityKey(entitySet: "Maintenance", value: .int(Int64(record.0))),
                            entitySet: "Maintenance", type: nil,
                            properties: [
                                .init(name: "mileage", value: .int(Int64(record.1))),
                                .init(
                                    name: "serviceDate",
                                    value: .dateTime(ODataInstant(millisecondsSince1970: Int64(record.2)))),
                            ], etag: nil, fetchedAt: Date()),
                        link: nil)
                }
        }

        var rowCount: Int { rows.count }
        func row(at position: Int) -> ListRow? { rows.indices.contains(position) ? rows[position] : nil }
        func select(position: Int) { selectedPosition = position }
        func reload() { reloads += 1 }
    }

    @Test func the_chart_samples_the_lists_rows_in_date_order_and_moves_its_cursor() throws {
        let environment = BrowserEnvironment(
            cache: try temporaryCache(), intents: RecordingIntents(), model: CarDealerModel.plainModel,
            profile: DisplayProfile.defaults(for: CarDealerModel.plainModel))
        let list = ThreeRecords()
        let chart = try #require(
            ChartController(environment: environment, list: list, specs: [.init(x: "serviceDate", y: "mileage")]))
        chart.didAppear()
        #expect(list.reloads == 1)
        #expect(chart.samples.map { $0.y } == [100, 200, 300])
        // The list's cursor on its first row (the latest record) is the chart's highlighted point
        #expect(chart.highlighted == 2)
        // When the chart moves one point back, the list's cursor follows to that record's row
        _ = chart.handle(Key.left)
        #expect(list.selectedPosition == 2)
    }
}
