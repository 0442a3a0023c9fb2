import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built binary in tmux changes and deletes data of the built-in service (on a data file of its own).
@Suite(.serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoWriteTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// The service's own copy of a car's make (what the list without a profile shows), read past the browser.
    func make(of car: Int, at root: String) async throws -> (status: Int, make: String?) {
        let response = try await HTTPClientTransport(timeout: 5).send(TransportRequest(url: root + "Car(\(car))"))
        guard response.status == 200,
            case .entity(let entity) = try VerboseJSONDecoder(serviceRoot: root).decode(response.body)
        else { return (response.status, nil) }
        if case .string(let make)? = entity["make"] { return (200, make) }
        return (200, nil)
    }

    @Test func a_car_changed_then_deleted_in_the_browser_is_changed_then_gone_on_the_service() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-writes")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let app = try Launch("browse \(server.baseURL)Car", columns: 100, rows: 30)
        defer { app.close() }
        let list = try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // Given the first car on the list (Car(1), ordered by key)
        #expect(list.contains("1 of "), "\(list)")
        let before = try await make(of: 1, at: server.baseURL)
        #expect(before.status == 200)
        // When its make is changed in the form
        try app.tmux.sendKeys("g", "e")
        try await app.expect("the form") { $0.contains("Change ") && $0.contains("(key)") }
        try app.tmux.sendKeys("C-u")  // the make, the first field that can change, which the list shows
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Typed in tmux")
        try app.tmux.sendKeys("Enter")
        // Then the list shows it, settled, and the service holds it
        try await app.expect("the change settled") {
            $0.contains("Typed in tmux") && !$0.contains("(key)") && !$0.contains("pending")
        }
        #expect(try await make(of: 1, at: server.baseURL).make == "Typed in tmux")
        // When it is deleted, after the question naming it
        try app.tmux.sendKeys("x")
        try await app.expect("the question") { $0.contains("Delete “") && $0.contains("y deletes it") }
        try app.tmux.sendKeys("y")
        // Then it leaves the list, and the service no longer has it
        try await app.expect("the row gone") { !$0.contains("Typed in tmux") && !$0.contains("pending") }
        #expect(try await eventually { try await make(of: 1, at: server.baseURL).status == 404 })
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        app.close()
        await server.stop()
    }
}
