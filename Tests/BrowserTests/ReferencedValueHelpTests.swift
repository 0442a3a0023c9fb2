import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal
import Testing

@testable import Browser

/// Value help from another service (issue 33, `Common.ValueListReferences`): F4 on a field whose property names the
/// `$metadata` of a value-help service opens that service through the session (here a seam: the value-help
/// service's model, cache and fetcher, made by the test), lists the values its `Common.ValueListMapping` names,
/// narrowed by the form's `In` parameters, and Enter writes the chosen one back. The list's screens are the
/// value-help service's: their fetches and their closing go to its fetcher, not the session's.
@MainActor
@Suite struct ReferencedValueHelpTests {
    static let root = "https://erp.example/sap/opu/odata4/sap/people/srvd/sap/people/0001/"
    static let helpRoot = "https://erp.example/sap/opu/odata4/sap/people/srvd_f4/sap/i_name/0001/"

    /// The value-help service: surnames by first name, its mapping aimed at the session's `Person/lastName`.
    /// (`aimedAs`: the mapping's target as the value-help service writes it, when not `Main.Type/property`)
    static func helpModel(
        aimedAt target: String, collection: String = "Surname", aimedAs: String? = nil
    ) throws
        -> ServiceModel
    {
        try EDMXParser.parse(
            """
            <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
              <edmx:Reference Uri="../../../../srvd/sap/people/0001/$metadata">
                <edmx:Include Namespace="\(target.split(separator: "/")[0].split(separator: ".").dropLast()
                .joined(separator: "."))" Alias="Main"/>
              </edmx:Reference>
              <edmx:DataServices>
                <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Help">
                  <EntityType Name="Surname"><Key><PropertyRef Name="id"/></Key>
                    <Property Name="id" Type="Edm.Int32" Nullable="false"/>
                    <Property Name="name" Type="Edm.String"/>
                    <Property Name="firstName" Type="Edm.String"/>
                  </EntityType>
                  <EntityContainer Name="Container"><EntitySet Name="Surname" EntityType="Help.Surname"/></EntityContainer>
                  <Annotations Target="\(aimedAs ?? "Main." + target.split(separator: ".").last!)">
                    <Annotation Term="com.sap.vocabularies.Common.v1.ValueListMapping">
                      <Record>
                        <PropertyValue Property="Label" String="Surnames"/>
                        <PropertyValue Property="CollectionPath" String="\(collection)"/>
                        <PropertyValue Property="Parameters"><Collection>
                          <Record Type="com.sap.vocabularies.Common.v1.ValueListParameterInOut">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="lastName"/>
                            <PropertyValue Property="ValueListProperty" String="name"/>
                          </Record>
                          <Record Type="com.sap.vocabularies.Common.v1.ValueListParameterIn">
                            <PropertyValue Property="LocalDataProperty" PropertyPath="firstName"/>
                            <PropertyValue Property="ValueListProperty" String="firstName"/>
                          </Record>
                        </Collection></PropertyValue>
                      </Record>
                    </Annotation>
                  </Annotations>
                </Schema>
              </edmx:DataServices>
            </edmx:Edmx>
            """)
    }

    struct Setup {
        var app: BrowserApp
        var terminal: HeadlessTerminal
        var writes: RecordingWrites
        var intents: RecordingIntents
        var helpIntents: RecordingIntents
        var opened: Opened
    }

    /// The roots the session was asked to open.
    final class Opened: @unchecked Sendable {
        // Protected by `lock`.
        private let lock = NSLock()
        private var _roots: [String] = []
        var roots: [String] { lock.withLock { _roots } }
        func add(_ root: String) { lock.withLock { _roots.append(root) } }
    }

    /// Ann Smith in the people list; her last name refers to `references`; the session opens the value-help
    /// service with `open` (the surnames Smith and Jones for Ann, Brown for Bob, in its own cache).
    func app(
        references: [String] = ["../../../../srvd_f4/sap/i_name/0001/$metadata"],
        fails: String? = nil, collection: String = "Surname", ownMapping: ValueList? = nil, aimedAs: String? = nil
    ) throws -> Setup {
        let cache = try temporaryCache()
        try seedPeople(cache, people: [(1, "Ann", "Smith", [])])
        try cache.writeBlocking { session in
            try session.writeListPage(
                ListRequest(entitySet: "Person").key, offset: 0, entityKeys: ["Person(1)"], totalCount: 1,
                nextLink: nil, isLastPage: true, at: Date())
        }
        var model = CarDealerModel.plainModel
        let type = try #require(model.entitySet(named: "Person")?.entityType)
        let index = try #require(model.entityTypes[type]?.properties.firstIndex { $0.name == "lastName" })
        model.entityTypes[type]!.properties[index].valueListReferences = references
        if let ownMapping { model.valueListMappings[type + "/lastName"] = [ownMapping] }
        let helpModel = try Self.helpModel(aimedAt: type + "/lastName", collection: collection, aimedAs: aimedAs)
        // (a service under `/empty/` maps another property, not this one)
        let emptyModel = try Self.helpModel(aimedAt: type + "/firstName")
        let helpCache = try temporaryCache()
        // (the list the form's first name narrows it to, as the picker asks for it)
        let ann = ListRequest(
            entitySet: "Surname",
            filter: QueryFilter.all([.compare("firstName", .eq, .string("Ann"), type: .string)]).and(
                nil, dialect: helpModel.dialect))
        try helpCache.writeBlocking { session in
            for (id, name, first) in [(1, "Smith", "Ann"), (2, "Jones", "Ann"), (3, "Brown", "Bob")] {
                try session.upsertEntity(
                    key: "Surname(\(id))", entitySet: "Surname", type: nil,
                    properties: [
                        ODataProperty(name: "id", value: .int(Int64(id))),
                        ODataProperty(name: "name", value: .string(name)),
                        ODataProperty(name: "firstName", value: .string(first)),
                    ], etag: nil, at: Date(), partial: false)
            }
            try session.writeListPage(
                ann.key, offset: 0, entityKeys: ["Surname(1)", "Surname(2)"], totalCount: 2, nextLink: nil,
                isLastPage: true, at: Date())
            // (and all of them, as `:filter`'s F4 lists them)
            try session.writeListPage(
                ListRequest(entitySet: "Surname").key, offset: 0,
                entityKeys: ["Surname(1)", "Surname(2)", "Surname(3)"], totalCount: 3, nextLink: nil,
                isLastPage: true, at: Date())
        }
        let writes = RecordingWrites()
        let intents = RecordingIntents()
        let helpIntents = RecordingIntents()
        let opened = Opened()
        let environment = BrowserEnvironment(
            cache: cache, intents: intents, writes: writes, model: model, profile: DisplayProfile.defaults(for: model))
        environment.serviceRoot = Self.root
        environment.openService = { root in
            opened.add(root)
            try await Task.sleep(for: .milliseconds(20))
            if let fails { throw SessionErrorForTest(description: fails) }
            let model = root.contains("/empty/") ? emptyModel : helpModel
            return ReferencedService(
                root: root, cache: helpCache, intents: helpIntents, model: model,
                profile: DisplayProfile.defaults(for: model))
        }
        let (app, terminal) = BrowserApp.presented(environment, size: TerminalSize(columns: 80, rows: 14))
        return Setup(
            app: app, terminal: terminal, writes: writes, intents: intents, helpIntents: helpIntents, opened: opened)
    }

    struct SessionErrorForTest: Error, CustomStringConvertible { var description: String }

    func frame(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.joined(separator: "\n") }

    /// The form on Ann, its focus on the last name.
    func lastNameFocused(_ setup: Setup) {
        _ = setup.app.handle([.key(.char("e"))])
        for _ in 0..<6 where !(setup.terminal.lastFrame.contains { $0.hasPrefix("▌") && $0.contains("lastName") }) {
            _ = setup.app.handle([.key(.tab)])
        }
    }

    /// Waits (at most 3 s) until `done`, then draws a frame.
    func settle(_ setup: Setup, until done: () -> Bool) async throws {
        for _ in 0..<300 where !done() { try await Task.sleep(for: .milliseconds(10)) }
        setup.app.setNeedsDisplay()
        setup.app.presentIfNeeded()
    }

    /// What the form on top says.
    func said(_ setup: Setup) -> String { (setup.app.stack.top as? EditFormController)?.message ?? "" }

    @Test func f4_opens_the_referenced_service_and_enter_writes_its_value_into_the_form() async throws {
        let setup = try app()
        lastNameFocused(setup)
        #expect(frame(setup.terminal).contains("F4 lists values"), "\(frame(setup.terminal))")
        // When F4 is pressed
        _ = setup.app.handle([.key(.function(4))])
        // Then the form says it is reading the value help, from the service the reference resolves to
        #expect(setup.app.stack.top is EditFormController)
        #expect(frame(setup.terminal).contains("Reading the value help of lastName"), "\(frame(setup.terminal))")
        try await settle(setup) { setup.app.stack.top is EntityListController }
        #expect(setup.opened.roots == [Self.helpRoot])
        // And then the value list is shown, narrowed by the form's first name (the `In` parameter)
        let picker = try #require(setup.app.stack.top as? EntityListController)
        #expect(
            picker.environment !== setup.app.environment && picker.environment.model.entitySet(named: "Surname") != nil)
        let shown = frame(setup.terminal)
        #expect(shown.contains("Surnames") && shown.contains("Jones") && !shown.contains("Brown"), "\(shown)")
        #expect(shown.contains("Enter takes it for lastName"), "\(shown)")
        // (what it shows is asked of the value-help service's fetcher, not the session's)
        #expect(setup.helpIntents.shown.contains { $0.2 == picker.screenID })
        #expect(!setup.intents.shown.contains { $0.2 == picker.screenID })
        // When Jones is chosen
        _ = setup.app.handle([.key(.char("j")), .key(.enter)])
        // Then the form holds it, and the picker's closing went to its own fetcher
        #expect(setup.app.stack.top is EditFormController)
        #expect(setup.helpIntents.closed == [picker.screenID])
        #expect(!setup.intents.closed.contains(picker.screenID))
        #expect(frame(setup.terminal).contains("Taken from the value help"), "\(frame(setup.terminal))")
        _ = setup.app.handle([.key(.enter)])
        #expect(setup.writes.saved.map(\.changes) == [[ODataProperty(name: "lastName", value: .string("Jones"))]])
        // And F4 again lists them at once, from the service already open
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        #expect(setup.app.stack.top is EntityListController)
        #expect(setup.opened.roots == [Self.helpRoot])
    }

    @Test func an_actions_parameter_takes_its_value_from_the_service_its_references_name() async throws {
        // Given a value-help service that aims its mapping at the parameter of an action bound to a person, through
        // its alias of the main namespace
        let setup = try app(aimedAs: "Main.Rename(Main.Person)/lastName")
        let type = try #require(setup.app.environment.model.entitySet(named: "Person")?.entityType)
        var rename = ServiceOperation(
            kind: .action, name: type.dropLast("Person".count) + "Rename",
            parameters: [
                .init(name: "firstName", type: .primitive(.string)), .init(name: "lastName", type: .primitive(.string)),
            ], method: .post, dialect: .v4)
        rename.qualifiedName = rename.name
        rename.boundType = type
        rename.parameters[1].valueListReferences = ["../../../../srvd_f4/sap/i_name/0001/$metadata"]
        let form = EditFormController(
            environment: setup.app.environment, parametersOf: rename, title: "Rename", breadcrumb: "Rename"
        ) { _ in .success(.pop) }
        setup.app.stack.push(form)
        _ = setup.app.handle([.key(.char("A")), .key(.char("n")), .key(.char("n")), .key(.tab)])
        #expect(frame(setup.terminal).contains("F4 lists values"), "\(frame(setup.terminal))")
        // When F4 is pressed on the parameter
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { setup.app.stack.top is EntityListController }
        // Then the value help lists the surnames, narrowed by the first name the form holds
        #expect(setup.opened.roots == [Self.helpRoot])
        let shown = frame(setup.terminal)
        #expect(shown.contains("Jones") && !shown.contains("Brown"), "\(shown)")
        // And Enter writes the chosen one into the parameter
        _ = setup.app.handle([.key(.char("j")), .key(.enter)])
        let back = try #require(setup.app.stack.top as? EditFormController)
        #expect(back.fields.first { $0.input.name == "lastName" }?.text == "Jones")
    }

    @Test func f4_in_filter_reads_the_values_another_service_lists_and_writes_the_chosen_one_into_the_line()
        async throws
    {
        let setup = try app()
        let people = try #require(setup.app.stack.top as? EntityListController)
        // When F4 is pressed with `:filter lastName = ` typed
        _ = setup.app.handle(
            [.key(.char(":"))] + "filter lastName = ".map { .key(.char($0)) } + [.key(.function(4))])
        // Then the palette says the value help is being read, and it is read from the referenced service
        #expect(frame(setup.terminal).contains("Reading the value help of lastName"), "\(frame(setup.terminal))")
        try await settle(setup) { setup.app.stack.top !== people }
        #expect(setup.opened.roots == [Self.helpRoot])
        // And once it is, its values are listed, all of them (the filter has no `In` parameters to narrow by)
        let picker = try #require(setup.app.stack.top as? EntityListController)
        #expect(picker.environment !== setup.app.environment)
        let shown = frame(setup.terminal)
        #expect(shown.contains("Jones") && shown.contains("Brown"), "\(shown)")
        #expect(shown.contains("Enter takes it for :filter lastName"), "\(shown)")
        // When Jones is chosen, the palette comes back with it in the line
        _ = setup.app.handle([.key(.char("j")), .key(.enter)])
        #expect(setup.app.stack.top === people)
        #expect(setup.app.palette.isOpen && setup.app.palette.text.contains("Jones"), "\(setup.app.palette.text)")
        // And F4 again lists them at once, from the service already open
        _ = setup.app.handle([.key(.escape), .key(.char(":"))] + "filter lastName = ".map { .key(.char($0)) })
        _ = setup.app.handle([.key(.function(4))])
        #expect(setup.app.stack.top !== people)
        #expect(setup.opened.roots == [Self.helpRoot])
    }

    @Test func the_request_log_shows_the_value_help_services_requests_beside_the_sessions() async throws {
        let setup = try app()
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { setup.app.stack.top is EntityListController }
        let picker = try #require(setup.app.stack.top as? EntityListController)
        // Given a request of each service, each in its own cache's log
        let started = Date()
        for (cache, url, offset) in [
            (setup.app.environment.testCache, Self.root + "Person", 0.0),
            (picker.environment.testCache, Self.helpRoot + "Surname", 1.0),
        ] {
            _ = try await cache.write { session in
                try session.appendRequestLog(
                    RequestLogEntry(
                        url: url, status: 200, bytes: 10, duration: 0.1, outcome: .fetched,
                        startedAt: started.addingTimeInterval(offset), attempts: 1))
            }
        }
        // When the log is opened
        _ = setup.app.handle([.key(.escape), .key(.escape), .key(.char("i"))])
        let log = try #require(setup.app.stack.top as? RequestLogController)
        // Then both are there, the later first
        #expect(log.entries.map(\.url) == [Self.helpRoot + "Surname", Self.root + "Person"])
    }

    @Test func a_reference_to_another_server_is_not_followed() async throws {
        let setup = try app(references: ["https://elsewhere.example/help/$metadata"])
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        #expect(setup.app.stack.top is EditFormController)
        let shown = frame(setup.terminal)
        #expect(
            shown.contains("Value help of lastName not read: it is on another server, elsewhere.example."), "\(shown)")
        try await Task.sleep(for: .milliseconds(50))
        #expect(setup.opened.roots.isEmpty)
    }

    @Test func a_service_that_cannot_be_opened_is_a_sentence_and_the_form_stays() async throws {
        let setup = try app(fails: "the service answered 503 Service Unavailable")
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { said(setup).contains("could not be read") }
        #expect(setup.app.stack.top is EditFormController)
        #expect(
            frame(setup.terminal).contains("The value help of lastName could not be read: the service answered 503"),
            "\(frame(setup.terminal))")
    }

    @Test func a_mapping_to_a_set_the_value_help_service_lacks_is_a_sentence() async throws {
        let setup = try app(collection: "Nowhere")
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { said(setup).contains("does not have") }
        #expect(setup.app.stack.top is EditFormController)
        #expect(
            frame(setup.terminal).contains("The value help of lastName is listed in a set its service does not have"),
            "\(frame(setup.terminal))")
    }

    @Test func leaving_the_form_before_the_service_is_open_pushes_nothing() async throws {
        let setup = try app()
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4)), .key(.tab)])
        try await settle(setup) { said(setup).contains("is ready") }
        #expect(setup.app.stack.top is EditFormController)
        #expect(frame(setup.terminal).contains("is ready: F4 on it shows it"), "\(frame(setup.terminal))")
    }

    @Test func a_service_that_names_itself_for_the_values_lists_them_from_its_own_model() throws {
        // (as UI5 allows: the reference is the service's own $metadata, the mapping in its own model)
        let setup = try app(
            references: ["$metadata"],
            ownMapping: ValueList(
                collectionPath: "Car", label: "Makes",
                parameters: [.init(kind: .inOut, localProperty: "lastName", valueListProperty: "make")]))
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        // Then the list is this service's, at once, and no other service is opened
        let picker = try #require(setup.app.stack.top as? EntityListController)
        #expect(picker.environment === setup.app.environment)
        #expect(frame(setup.terminal).contains("Enter takes it for lastName"), "\(frame(setup.terminal))")
        #expect(setup.opened.roots.isEmpty)
    }

    @Test func a_service_opened_after_its_form_was_left_is_kept_for_the_next_f4() async throws {
        let setup = try app()
        lastNameFocused(setup)
        // When F4 is pressed and the form left (Esc asks nothing of an unchanged form) before the service is open
        _ = setup.app.handle([.key(.function(4)), .key(.escape)])
        #expect(!(setup.app.stack.top is EditFormController))
        try await settle(setup) { setup.app.environment.referencedEnvironments[Self.helpRoot] != nil }
        #expect(!(setup.app.stack.top is EntityListController && setup.app.stack.controllers.count > 1))
        // Then F4 in the form opened again lists the values at once, with no second opening
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        #expect(setup.app.stack.top is EntityListController)
        #expect(setup.opened.roots == [Self.helpRoot])
    }

    @Test func the_references_are_tried_in_order_until_a_service_maps_the_property() async throws {
        let setup = try app(references: [
            "../../../../srvd_f4/sap/empty/0001/$metadata", "../../../../srvd_f4/sap/i_name/0001/$metadata",
        ])
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { setup.app.stack.top is EntityListController }
        // Then the first, which says nothing of the last name, was opened, then the second, which lists it
        #expect(
            setup.opened.roots == [
                "https://erp.example/sap/opu/odata4/sap/people/srvd_f4/sap/empty/0001/", Self.helpRoot,
            ])
        #expect(frame(setup.terminal).contains("Surnames"), "\(frame(setup.terminal))")
        // And F4 again opens neither again
        _ = setup.app.handle([.key(.escape)])
        _ = setup.app.handle([.key(.function(4))])
        #expect(setup.app.stack.top is EntityListController)
        #expect(setup.opened.roots.count == 2)
    }

    @Test func a_later_reference_already_open_does_not_jump_an_earlier_one_not_yet_opened() async throws {
        let first = "https://erp.example/sap/opu/odata4/sap/people/srvd_f4/sap/first/0001/"
        let setup = try app(references: [
            "../../../../srvd_f4/sap/first/0001/$metadata", "../../../../srvd_f4/sap/i_name/0001/$metadata",
        ])
        // Given the second already open this session (by another field's F4, say)
        let model = try Self.helpModel(
            aimedAt: try #require(setup.app.environment.model.entitySet(named: "Person")?.entityType) + "/lastName")
        _ = setup.app.environment.environment(
            for: ReferencedService(
                root: Self.helpRoot, cache: try temporaryCache(), intents: RecordingIntents(), model: model,
                profile: DisplayProfile.defaults(for: model)))
        lastNameFocused(setup)
        _ = setup.app.handle([.key(.function(4))])
        try await settle(setup) { setup.app.stack.top is EntityListController }
        // Then the first is opened and lists the values, as a fresh session would have it
        #expect(setup.opened.roots == [first])
        let picker = try #require(setup.app.stack.top as? EntityListController)
        #expect(picker.environment === setup.app.environment.referencedEnvironments[first])
    }
}
