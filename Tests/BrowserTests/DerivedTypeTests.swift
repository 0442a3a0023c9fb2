import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Derived and open types (issue 37): a list of a base type says each row's own type where it differs; a detail
/// shows its own type's properties, then the dynamic ones an open type's entity holds, apart and as text; a type the
/// payload names that the set cannot hold is not trusted.
@MainActor
@Suite struct DerivedTypeTests {
    static let model: ServiceModel = {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="W" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Employee" OpenType="true"><Key><PropertyRef Name="staffID"/></Key>
                <Property Name="staffID" Type="Edm.Int32" Nullable="false"/><Property Name="name" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Mechanic" BaseType="W.Employee"><Property Name="speciality" Type="Edm.String"/>
              </EntityType>
              <EntityType Name="Invoice"><Key><PropertyRef Name="invoiceID"/></Key>
                <Property Name="invoiceID" Type="Edm.Int32" Nullable="false"/><Property Name="total" Type="Edm.Int32"/>
              </EntityType>
              <EntityContainer Name="C"><EntitySet Name="Staff" EntityType="W.Employee"/>
                <EntitySet Name="Invoices" EntityType="W.Invoice"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        do { return try EDMXParser.parse(Array(document.utf8)) } catch { fatalError("\(error)") }
    }()

    /// A clerk, a mechanic with a dynamic property named by a hostile service, and one claiming a type the set
    /// cannot hold.
    func app(open key: Int? = nil) throws -> (BrowserApp, HeadlessTerminal, BrowserEnvironment) {
        let cache = try temporaryCache()
        let staff = ListRequest(entitySet: "Staff")
        try cache.write { session in
            for (id, name, type, extra) in [
                (1, "Dana", "W.Employee", [ODataProperty]()),
                (
                    2, "Fay", "W.Mechanic",
                    [
                        .init(name: "speciality", value: .string("Electrics")),
                        .init(name: "nick\u{1B}[31mname", value: .string("Sparks")),
                    ]
                ),
                (3, "Gil", "W.Invoice", [.init(name: "total", value: .int(9))]),
            ] {
                try session.upsertEntity(
                    key: EntityKey(entitySet: "Staff", value: .int(Int64(id))), entitySet: "Staff", type: type,
                    properties: [
                        .init(name: "staffID", value: .int(Int64(id))), .init(name: "name", value: .string(name)),
                    ]
                        + extra, etag: nil, at: Date(), partial: false)
            }
            try session.writeListPage(
                staff.key, offset: 0, entityKeys: ["Staff(1)", "Staff(2)", "Staff(3)"], totalCount: 3, nextLink: nil,
                isLastPage: true, at: Date())
        }
        let environment = BrowserEnvironment(
            cache: cache, intents: RecordingIntents(), model: Self.model, profile: DisplayProfile(root: nil, sets: [:]))
        let terminal = HeadlessTerminal(size: TerminalSize(columns: 100, rows: 12))
        let root: any ScreenController =
            key.map {
                EntityDetailController(
                    environment: environment, key: EntityKey(entitySet: "Staff", value: .int(Int64($0))),
                    breadcrumb: "one")
            } ?? EntityListController(environment: environment, entitySet: "Staff")
        let app = BrowserApp(terminal: terminal, environment: environment, root: root)
        app.presentIfNeeded()
        return (app, terminal, environment)
    }

    @Test func a_list_of_a_base_type_says_each_rows_own_type_where_it_differs() throws {
        let (_, terminal, _) = try app()
        let frame = terminal.lastFrame
        #expect(frame[1].contains("Type"), "\(frame[1])")
        let dana = try #require(frame.first { $0.contains("Dana") })
        let fay = try #require(frame.first { $0.contains("Fay") })
        let gil = try #require(frame.first { $0.contains("Gil") })
        #expect(fay.contains("Mechanic"))
        // (the set's own type, and one it cannot hold, leave it empty)
        #expect(!dana.contains("Employee") && !gil.contains("Invoice"), "\(dana)\n\(gil)")
    }

    @Test func a_detail_shows_its_own_types_properties_then_the_dynamic_ones_as_text() throws {
        let (app, terminal, _) = try app(open: 2)
        let detail = try #require(app.stack.top as? EntityDetailController)
        let lines = detail.lines.map { ($0.isHeading ? "# " : "") + $0.label + " " + $0.value }
        #expect(lines.count >= 6, "\(lines)")
        #expect(
            Array(lines.prefix(5)) == [
                "Type Mechanic", "staffID 2", "name Fay",
                "speciality Electrics", "# Dynamic properties ",
            ], "\(lines)")
        // The escape a service put in a name never reaches the terminal, nor the line's label
        #expect(lines[5].hasPrefix("nick") && lines[5].hasSuffix("name Sparks") && !lines[5].contains("\u{1B}"))
        #expect(!terminal.lastFrame.joined().contains("\u{1B}"))
        #expect(terminal.lastFrame.joined().contains("Sparks"))
    }

    @Test func an_entity_claiming_a_type_its_set_cannot_hold_is_read_as_its_sets() throws {
        let (app, _, _) = try app(open: 3)
        let detail = try #require(app.stack.top as? EntityDetailController)
        let lines = detail.lines.map { ($0.isHeading ? "# " : "") + $0.label + " " + $0.value }
        // (what the set's type does not declare is shown apart, not as the invoice's total)
        #expect(lines == ["staffID 3", "name Gil", "# Dynamic properties ", "total 9"], "\(lines)")
    }
}
