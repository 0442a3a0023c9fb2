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
                <Property Name="workplace" Type="W.Address"/><Property Name="skills" Type="Collection(Edm.String)"/>
              </EntityType>
              <ComplexType Name="Address"><Property Name="street" Type="Edm.String"/>
                <Property Name="city" Type="Edm.String" sap:label="Town" xmlns:sap="http://www.sap.com/Protocols/SAPData"/>
                <Property Name="site" Type="W.Site"/></ComplexType>
              <ComplexType Name="Site"><Property Name="floor" Type="Edm.Int32"/></ComplexType>
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
    func app(
        open key: Int? = nil, writes: (any WriteIntents)? = nil
    ) throws -> (BrowserApp, HeadlessTerminal, BrowserEnvironment) {
        let cache = try temporaryCache()
        let staff = ListRequest(entitySet: "Staff")
        try cache.writeBlocking { session in
            for (id, name, type, extra) in [
                (1, "Dana", "W.Employee", [ODataProperty]()),
                (
                    2, "Fay", "W.Mechanic",
                    [
                        .init(name: "speciality", value: .string("Electrics")),
                        .init(
                            name: "workplace",
                            value: .complex([
                                .init(name: "street", value: .string("1 Pike Street")),
                                .init(name: "city", value: .string("Seattle")),
                                .init(name: "site", value: .complex([.init(name: "floor", value: .int(3))])),
                            ])),
                        .init(name: "skills", value: .collection((1...60).map { .string("Skill \($0)") })),
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
            cache: cache, intents: RecordingIntents(), writes: writes, model: Self.model,
            profile: DisplayProfile(root: nil, sets: [:]))
        let root: any ScreenController =
            key.map {
                EntityDetailController(
                    environment: environment, key: EntityKey(entitySet: "Staff", value: .int(Int64($0))),
                    breadcrumb: "one")
            } ?? EntityListController(environment: environment, entitySet: "Staff")
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 100, rows: 12), root: root)
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
        let (app, _, _) = try app(open: 2)
        let detail = try #require(app.stack.top as? EntityDetailController)
        let lines = detail.lines.map { ($0.isHeading ? "# " : "") + $0.label + " " + $0.value }
        let dynamic = try #require(lines.firstIndex(of: "# Dynamic properties "), "\(lines)")
        #expect(
            Array(lines.prefix(5)) == ["Type Mechanic", "staffID 2", "name Fay", "speciality Electrics", "workplace "],
            "\(lines)")
        // A complex value's members under it, by the labels of its type, a nested one opened too
        #expect(Array(lines[5...8]) == ["  street 1 Pike Street", "  Town Seattle", "  site ", "    floor 3"])
        // A collection's elements numbered under its count, the fiftieth the last, then how many more
        #expect(lines[9] == "skills 60 items" && lines[10] == "  1 Skill 1" && lines[59] == "  50 Skill 50")
        #expect(lines[60] == "  … 10 more (v shows all)" && dynamic == 61)
        // (Enter on a member reads the whole value)
        #expect(detail.lines[6].name == "workplace")
        // The escape a service put in a name is not in the line's label
        let named = lines[dynamic + 1]
        #expect(named.hasPrefix("nick") && named.hasSuffix("name Sparks") && !named.contains("\u{1B}"), "\(named)")
    }

    @Test func a_line_items_path_into_a_complex_value_is_a_column() throws {
        var model = Self.model
        model.entityTypes["W.Employee"]?.ui = UIAnnotations(lineItem: [
            DataField(path: "name"), DataField(path: "workplace/city"), DataField(path: "workplace/nowhere"),
            DataField(path: "workplace/site/floor", label: "Floor"),
        ])
        let columns = EntityListController.columns(
            from: DisplayProfile.SetProfile(), set: "Staff", model: model)
        // (a path the type does not have is no column)
        #expect(columns.map(\.title) == ["name", "Type", "Town", "Floor"])
        #expect(columns.map(\.value) == ["{name}", "{@type}", "{workplace/city}", "{workplace/site/floor}"])
        let (_, terminal, environment) = try app()
        let fay = try #require(terminal.lastFrame.first { $0.contains("Fay") })
        #expect(!fay.contains("Seattle"))  // (the model without the line item: no such column)
        let list = EntityListController(environment: environment, entitySet: "Staff")
        let shown = try #require(try environment.cache.entity(EntityKey(entitySet: "Staff", value: .int(2))))
        let values = list.cellValues(of: shown)
        #expect(values("workplace/city") == .string("Seattle") && values("workplace/site/floor") == .int(3))
        #expect(values("workplace/nowhere") == nil && values("name/city") == nil)
        // (a name of slashes alone, as a hostile $metadata may give a property, names nothing and breaks nothing)
        #expect(values("/") == nil && values("//") == nil)
    }

    @Test func an_entity_claiming_a_type_its_set_cannot_hold_is_read_as_its_sets() throws {
        let (app, _, _) = try app(open: 3)
        let detail = try #require(app.stack.top as? EntityDetailController)
        let lines = detail.lines.map { ($0.isHeading ? "# " : "") + $0.label + " " + $0.value }
        // (what the set's type does not declare is shown apart, not as the invoice's total)
        #expect(lines == ["staffID 3", "name Gil", "# Dynamic properties ", "total 9"], "\(lines)")
    }

    @Test func type_narrows_the_list_to_a_derived_type_through_a_type_cast_of_its_own() throws {
        let (app, terminal, _) = try app()
        func command(_ text: String) {
            _ = app.handle([.key(.char(":"))] + text.map { .key(.char($0)) } + [.key(.enter)])
        }
        // A type the set does not have is a sentence naming those it has
        command("type clerk")
        #expect(terminal.lastFrame.last?.contains("Staff have these types besides their own: Mechanic.") == true)
        #expect(app.stack.controllers.count == 1)
        // Its derived type, in any case: a list of its own, asked of the service as a type cast
        command("type MECHANIC")
        let narrowed = try #require(app.stack.top as? EntityListController)
        guard case .list(let request) = narrowed.source else {
            Issue.record("not a list")
            return
        }
        #expect(request.path.segments.map(\.name) == ["Staff", "W.Mechanic"])
        #expect(narrowed.shownSet == "Staff" && narrowed.castType?.name == "Mechanic")
        // (whose columns are that type's, its own properties among them; no type column: they are all mechanics)
        #expect(narrowed.allColumns.map(\.title).contains("speciality"))
        #expect(!narrowed.allColumns.map(\.title).contains("Type"))
        #expect(terminal.lastFrame[0].contains("Staff › Mechanic"), "\(terminal.lastFrame[0])")
        // A list of a set nothing derives from says so
        _ = app.handle([.key(.escape)])
        command("Invoices")
        command("type mechanic")
        #expect(terminal.lastFrame.last?.contains("the service derives none from it") == true)
    }

    @Test func a_on_a_list_of_a_base_type_asks_which_type_then_opens_that_types_form() throws {
        let writes = RecordingWrites()
        let (app, terminal, _) = try app(writes: writes)
        // When a is pressed on the staff (Employees, some of them Mechanics)
        _ = app.handle([.key(.char("a"))])
        // Then the type is asked first: the set's own, then the one derived from it
        let asked = terminal.lastFrame
        #expect(asked.contains { $0.contains("Which type is the new one?") }, "\(asked)")
        // (each by its name, then its qualified name)
        let employee = try #require(
            asked.firstIndex { $0.range(of: #"▌Employee +W\.Employee"#, options: .regularExpression) != nil })
        let mechanic = try #require(
            asked.firstIndex { $0.range(of: #" Mechanic +W\.Mechanic"#, options: .regularExpression) != nil })
        #expect(employee < mechanic)
        // Esc goes back to the list; a again, then the mechanic: its form, with what a mechanic adds
        _ = app.handle([.key(.escape)])
        #expect(app.stack.top is EntityListController)
        _ = app.handle([.key(.char("a")), .key(.char("j")), .key(.enter)])
        #expect(app.stack.controllers.count == 2, "the choice gives way to the form")
        let form = try #require(app.stack.top as? EditFormController, "\(terminal.lastFrame)")
        #expect(terminal.lastFrame.contains { $0.contains("speciality") }, "\(terminal.lastFrame)")
        #expect(form.fields.contains { $0.input.name == "speciality" })
        // Saved, it is made as a mechanic (its type stated first)
        _ = app.handle("7".map { .key(.char($0)) } + [.key(.tab)] + "Gus".map { .key(.char($0)) } + [.key(.enter)])
        let made = try #require(writes.created.first, "\(terminal.lastFrame)")
        #expect(made.properties.first == ODataProperty(name: "@odata.type", value: .string("#W.Mechanic")), "\(made)")
        // The employee's form has no speciality
        _ = app.handle([.key(.char("a")), .key(.enter)])
        let plain = try #require(app.stack.top as? EditFormController, "\(terminal.lastFrame)")
        #expect(!plain.fields.contains { $0.input.name == "speciality" })
    }

    /// An abstract set type with one type derived from it: `a` makes that one, its form at once, its type stated.
    @Test func a_on_a_set_of_an_abstract_type_with_one_derived_type_opens_that_types_form() throws {
        let document = """
            <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
            <edmx:DataServices><Schema Namespace="V" xmlns="http://docs.oasis-open.org/odata/ns/edm">
              <EntityType Name="Vehicle" Abstract="true"><Key><PropertyRef Name="id"/></Key>
                <Property Name="id" Type="Edm.Int32" Nullable="false"/></EntityType>
              <EntityType Name="Truck" BaseType="V.Vehicle"><Property Name="payload" Type="Edm.Int32"/></EntityType>
              <EntityContainer Name="C"><EntitySet Name="Fleet" EntityType="V.Vehicle"/></EntityContainer>
            </Schema></edmx:DataServices></edmx:Edmx>
            """
        let model = try EDMXParser.parse(Array(document.utf8))
        let writes = RecordingWrites()
        let environment = BrowserEnvironment(
            cache: try temporaryCache(), intents: RecordingIntents(), writes: writes, model: model,
            profile: DisplayProfile(root: nil, sets: [:]))
        let (app, terminal) = BrowserApp.presented(
            environment, size: TerminalSize(columns: 100, rows: 12),
            root: EntityListController(environment: environment, entitySet: "Fleet"))
        _ = app.handle([.key(.char("a"))])
        let form = try #require(app.stack.top as? EditFormController, "\(terminal.lastFrame)")
        #expect(form.fields.contains { $0.input.name == "payload" })
        _ = app.handle("4".map { .key(.char($0)) } + [.key(.tab)] + "9".map { .key(.char($0)) } + [.key(.enter)])
        let made = try #require(writes.created.first, "\(terminal.lastFrame)")
        #expect(made.properties.first == ODataProperty(name: "@odata.type", value: .string("#V.Truck")), "\(made)")
    }
}
