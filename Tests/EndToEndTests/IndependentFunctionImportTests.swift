import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

let pysletRoot = ProcessInfo.processInfo.environment["CARDEALER_PYSLET_ROOT"]

/// v2 function imports on a server we did not write (issue 36): pyslet (PyPI) serving the schema in
/// `.ci/independent/v2_function_imports.py`, a `GET` function import answering cars and a `POST` one that repaints a
/// car. Each is invoked through the built binary in tmux, and what it did is read back from the service over HTTP.
/// The cars are the tests' own (a new one each run: the service runs once for the whole check).
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: pysletRoot != nil, "CARDEALER_PYSLET_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentFunctionImportTests {
    typealias Launch = BrowserInTmuxTests.Launch

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    /// A car of the test's own, made on the service.
    func makeCar(_ number: Int, make: String, colour: String) async throws {
        let root = try #require(pysletRoot)
        var create = TransportRequest(method: .post, url: root + "Cars", dialect: .v2)
        create.headers["Content-Type"] = "application/json"
        create.body = Array(#"{"carID":\#(number),"make":"\#(make)","colour":"\#(colour)"}"#.utf8)
        #expect(try await send(create).status == 201)
    }

    /// The car's colour as the service has it.
    func colour(of number: Int) async throws -> ODataValue? {
        let root = try #require(pysletRoot)
        let response = try await send(TransportRequest(url: root + "Cars(\(number))", dialect: .v2))
        guard case .entity(let car) = try PayloadDecoder(serviceRoot: root, dialect: .v2).decode(response.body)
        else { return nil }
        return car["colour"]
    }

    /// `!` on the cars lists the service's function imports; CarsOfColour (`GET`) asks for its colour and opens its
    /// answer as a list: the one car of that colour, as the service answers it.
    @Test func bang_then_a_GET_function_import_with_its_parameter_lists_the_cars_the_service_answers() async throws {
        let root = try #require(pysletRoot)
        let number = Int.random(in: 10_000...99_999)
        try await makeCar(number, make: "Trabant \(number)", colour: "Teal\(number)")
        // (given as the set's URL: pyslet answers `$metadata` there too, and the root above is the service's)
        let app = try Launch("browse \(root)Cars", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && $0.contains("carID") && !$0.contains("loading…") }
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") {
            $0.contains("Of the service") && $0.contains("CarsOfColour") && $0.contains("Repaint")
        }
        try await app.select("CarsOfColour")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameter") { $0.contains("colour") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Teal\(number)")
        try app.tmux.sendKeys("Enter")
        let screen = try await app.expect("the function import's answer") {
            $0.contains("CarsOfColour Teal\(number)") && $0.contains("Trabant \(number)") && !$0.contains("loading…")
        }
        let rows = screen.split(separator: "\n").filter { $0.contains("\(number)") }
        #expect(rows.count == 2, "\(screen)")  // the breadcrumb and the one row
        #expect(!screen.contains("Ford") && !screen.contains("Honda"), "\(screen)")
        try app.tmux.sendKeys("i")
        try await app.expect("the call in the request log") {
            $0.contains("Request log") && $0.contains("fetched") && $0.contains("/CarsOfColour?")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    /// Repaint (`POST`, `m:HttpMethod`): its parameters in a form, a question naming them, `y`, and the service has
    /// run it once (its own record of the calls) and holds the new colour, which the list shows once read again.
    @Test func bang_then_a_POST_function_import_repaints_the_car_on_the_service_once() async throws {
        let root = try #require(pysletRoot)
        let number = Int.random(in: 10_000...99_999)
        try await makeCar(number, make: "Lada \(number)", colour: "white")
        let app = try Launch("browse \(root)", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the sets") { $0.contains("● online") && $0.contains("Cars") }
        try app.tmux.sendKeys("Enter")
        try await app.expect("the cars") { $0.contains("Lada \(number)") && !$0.contains("loading…") }
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("Repaint") && $0.contains("action") }
        try await app.select("Repaint")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its parameters") { $0.contains("carID") && $0.contains("colour") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "\(number)")
        try app.tmux.sendKeys("Tab")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "Black\(number)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") {
            $0.contains("Repaint on the service") && $0.contains("carID \(number)") && $0.contains("y sends it")
        }
        try app.tmux.sendKeys("y")
        var repainted: ODataValue?
        for _ in 0..<100 {
            repainted = try await colour(of: number)
            if repainted == .string("Black\(number)") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(repainted == .string("Black\(number)"))
        // (the service's own record: the call ran once)
        let calls = try await send(TransportRequest(url: root + "_test/repaints?carID=\(number)", dialect: .v2))
        #expect(String(decoding: calls.body, as: UTF8.self) == #"["Black\#(number)"]"#)
        try await app.expect("nothing left in the outbox") { !$0.contains("pending") && $0.contains("● online") }
        try app.tmux.sendKeys("r")
        try await app.expect("the new colour on the row") { $0.contains("Black\(number)") }
        try app.tmux.sendKeys("i")
        try await app.expect("the call in the request log") {
            $0.contains("written") && $0.contains("Repaint?carID=\(number)&colour='Black\(number)'")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
