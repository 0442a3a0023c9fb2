import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Derived and open types from a service we did not write (issue 37): odatapy's `Staff`
/// (`.ci/independent/ownership_service.py`), of the open type `Employee`, holds mechanics (`Mechanic`, derived from
/// it, with a speciality) and one mechanic with a property the schema does not declare. The built binary's list says
/// which rows are mechanics, as the service's `@odata.type` says (read over HTTP); a mechanic's detail shows the
/// speciality among its fields and the undeclared property after them, under its own heading; its workplace (a
/// complex value) member by member, its skills (a collection) one per line, and the list the workplace's town, as
/// the set's `UI.LineItem` asks with a path into it. `:type Mechanic` lists the mechanics alone, as the service's
/// type cast (`Staff/Ownership.Mechanic`) answers; `a` there makes a mechanic, which the service holds as one.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentDerivedTypeTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// Types each text into the form's field whose line names its label (Tab until the focus mark is on it).
    func fill(_ app: Launch, _ fields: [(label: String, text: String)]) async throws {
        for (label, text) in fields {
            for _ in 0..<10 {
                let screen = try await app.tmux.captured()
                if screen.split(separator: "\n").contains(where: { $0.hasPrefix("▌") && $0.contains(label) }) { break }
                try app.tmux.sendKeys("Tab")
                try await Task.sleep(for: .milliseconds(50))
            }
            try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", text)
        }
    }

    /// Staff member `number` as the service holds it, read over HTTP: waiting up to 10 s for it to be there, or
    /// (`waits` false) as it is now.
    func staff(_ root: String, _ number: Int, waits: Bool = true) async throws -> [String: Any]? {
        for _ in 0..<(waits ? 100 : 1) {
            let answer = try await HTTPClientTransport(timeout: 10).send(
                TransportRequest(url: root + "Staff(\(number))", dialect: .v4))
            if answer.status == 200 {
                return try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            }
            if waits { try await Task.sleep(for: .milliseconds(100)) }
        }
        return nil
    }

    @Test func rows_of_a_derived_type_say_so_and_their_details_show_what_the_type_adds_and_what_is_dynamic()
        async throws
    {
        let root = try #require(odatapyRoot)
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Staff", dialect: .v4))
        let held = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let rows = try #require(held["value"] as? [[String: Any]])
        let mechanics = rows.filter { ($0["@odata.type"] as? String)?.hasSuffix(".Mechanic") == true }
            .compactMap { $0["name"] as? String }
        let others = rows.filter { $0["@odata.type"] == nil }.compactMap { $0["name"] as? String }
        let dynamic = try #require(rows.first { $0["nickname"] != nil })
        let (name, nickname) = (try #require(dynamic["name"] as? String), try #require(dynamic["nickname"] as? String))
        #expect(!mechanics.isEmpty && !others.isEmpty)
        let app = try Launch("browse \(root)Staff", columns: 100, rows: 16)
        defer { app.close() }
        let screen = try await app.expect("the staff") { screen in
            screen.contains("● online") && (mechanics + others).allSatisfy { screen.contains($0) }
        }
        let lines = screen.split(separator: "\n")
        // (and the town of each one's workplace, as the line item's path into it asks, where the service holds one)
        let workplace = try #require(dynamic["workplace"] as? [String: Any])
        let town = try #require(workplace["city"] as? String)
        #expect(lines.contains { $0.contains("Works in") })
        #expect(lines.contains { $0.contains(name) && $0.contains(town) }, "\(screen)")
        for mechanic in mechanics {
            #expect(lines.contains { $0.contains(mechanic) && $0.contains("Mechanic") }, "\(screen)")
        }
        for other in others {
            #expect(lines.contains { $0.contains(other) && !$0.contains("Mechanic") }, "\(screen)")
        }
        try await app.select(name)
        try app.tmux.sendKeys("Enter")
        let detail = try await app.expect("the mechanic") { $0.contains("Dynamic properties") && $0.contains(nickname) }
        let shown = detail.split(separator: "\n").map(String.init)
        let speciality = try #require(dynamic["speciality"] as? String)
        let order = ["Type", "speciality", "Dynamic properties", "nickname"].map { label in
            shown.firstIndex { $0.contains(label) } ?? -1
        }
        #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(detail)")
        #expect(shown.contains { $0.contains("speciality") && $0.contains(speciality) })
        // The workplace's members under it, by the labels of its type; the skills one per line under their count
        let skills = try #require(dynamic["skills"] as? [String])
        let street = try #require(workplace["street"] as? String)
        #expect(shown.contains { $0.contains("Town") && $0.contains(town) }, "\(detail)")
        #expect(shown.contains { $0.contains("street") && $0.contains(street) })
        #expect(shown.contains { $0.contains("skills") && $0.contains("\(skills.count) items") })
        for (index, skill) in skills.enumerated() {
            #expect(shown.contains { $0.contains(" \(index + 1) ") && $0.contains(skill) }, "\(detail)")
        }
        // `:type Mechanic` on the list: the service's type cast, the mechanics only, with their speciality
        try app.tmux.sendKeys("Escape")
        try await app.expect("the staff again") { $0.contains("Works in") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":type Mechanic")
        try app.tmux.sendKeys("Enter")
        let narrowed = try await app.expect("the mechanics") { screen in
            screen.contains("speciality") && mechanics.allSatisfy { screen.contains($0) }
        }
        #expect(others.allSatisfy { !narrowed.contains($0) }, "\(narrowed)")
        // `a` on the narrowed list makes a mechanic: the form asks for its speciality, and the service is told the
        // type (`@odata.type`), which it keeps (read over HTTP)
        let number = Int.random(in: 500...9_000)
        try app.tmux.sendKeys("a")
        try await app.expect("the new mechanic's form") { $0.contains("New") && $0.contains("speciality") }
        #expect(try await staff(root, number, waits: false) == nil)
        try await fill(app, [("staffID", "\(number)"), ("name", "Gus \(number)"), ("speciality", "Gearboxes")])
        try app.tmux.sendKeys("Enter")
        try await app.expect("the new mechanic listed") { $0.contains("Gus \(number)") && $0.contains("Gearboxes") }
        let made = try await staff(root, number)
        #expect((made?["@odata.type"] as? String)?.hasSuffix(".Mechanic") == true, "\(String(describing: made))")
        #expect(made?["speciality"] as? String == "Gearboxes" && made?["name"] as? String == "Gus \(number)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// `a` on the whole staff asks which type the new one is; a mechanic chosen, its form asks what a mechanic adds,
    /// and the service holds it as a mechanic (read over HTTP).
    @Test func a_on_the_whole_staff_asks_which_type_and_makes_a_mechanic() async throws {
        let root = try #require(odatapyRoot)
        let number = Int.random(in: 9_001...99_000)
        #expect(try await staff(root, number, waits: false) == nil)
        let app = try Launch("browse \(root)Staff", columns: 100, rows: 16)
        defer { app.close() }
        try await app.expect("the staff") { $0.contains("● online") && $0.contains("Works in") }
        try app.tmux.sendKeys("a")
        try await app.expect("the choice of type") {
            $0.contains("Which type is the new one?") && $0.contains("Ownership.Mechanic")
        }
        try await app.select("Mechanic")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the mechanic's form") { $0.contains("New") && $0.contains("speciality") }
        try await fill(app, [("staffID", "\(number)"), ("name", "Ida \(number)"), ("speciality", "Brakes")])
        try app.tmux.sendKeys("Enter")
        let made = try await staff(root, number)
        #expect((made?["@odata.type"] as? String)?.hasSuffix(".Mechanic") == true, "\(String(describing: made))")
        #expect(made?["speciality"] as? String == "Brakes" && made?["name"] as? String == "Ida \(number)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// A navigation only mechanics have (`Certificates`, declared on `Mechanic`): offered on a mechanic's screen and
    /// not on a clerk's, and read through the cast to the type (`Staff(2)/Ownership.Mechanic/Certificates`), which
    /// odatapy requires.
    @Test func a_mechanics_own_navigation_is_offered_on_a_mechanic_and_read_through_the_cast() async throws {
        let root = try #require(odatapyRoot)
        let response = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Staff(2)/Ownership.Mechanic/Certificates", dialect: .v4))
        let held = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let titles = try #require(held["value"] as? [[String: Any]]).compactMap { $0["title"] as? String }
        #expect(titles.count == 2)
        let app = try Launch("browse \(root) --open 'Staff(1)'", columns: 120, rows: 20)
        defer { app.close() }
        try await app.expect("the clerk, without certificates") {
            $0.contains("● online") && $0.contains("Dana") && !$0.contains("Certificates")
        }
        try app.tmux.sendKeys("Escape")
        try await app.expect("the staff") { $0.contains("Eli") && $0.contains("Fay") }
        try await app.select("Eli")
        try app.tmux.sendKeys("Enter")
        try await app.expect("Eli, a mechanic") { $0.contains("Brakes") && $0.contains("Certificates") }
        try await app.select("Certificates")
        try app.tmux.sendKeys("Enter")
        try await app.expect("his certificates") {
            titles.allSatisfy($0.contains) && $0.contains("1 of \(titles.count)")
        }
        try app.tmux.sendKeys("i")
        try await app.expect("the read through the cast") { $0.contains("/Staff(2)/Ownership.Mechanic/Certificates") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
