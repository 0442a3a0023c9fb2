import CarDealerTestSupport
import DemoServer
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The built-in service's function (issue 36), in both dialects, through the built binary in tmux: `!` on the cars
/// offers "Cars built before", Enter asks for its year, and the answer is the list the service itself answers for
/// that year (its count read back over HTTP).
@Suite(.serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed; skipping end-to-end tests"))
struct DemoOperationTests {
    typealias Launch = BrowserInTmuxTests.Launch

    @Test(arguments: [ODataDialect.v2, .v4])
    func bang_then_cars_built_before_a_year_lists_the_cars_the_service_answers(dialect: ODataDialect) async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-operations")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 30, dataPath: directory + "/demo.sqlite"))
        let root = dialect == .v4 ? server.version4URL : server.baseURL
        // What the service answers for 1990, asked here by hand
        let query =
            dialect == .v4
            ? "CarsBuiltBefore(year=@year)?@year=1990&$count=true&$top=0"
            : "CarsBuiltBefore?year=1990&$inlinecount=allpages&$top=0"
        let response = try await HTTPClientTransport(timeout: 5).send(
            TransportRequest(url: root + query, dialect: dialect))
        guard
            case .collection(let answer) = try VerboseJSONDecoder(serviceRoot: root, dialect: dialect).decode(
                response.body),
            let expected = answer.count
        else {
            Issue.record("the service did not count its answer: \(String(decoding: response.body, as: UTF8.self))")
            return
        }
        #expect(expected > 0)
        let app = try Launch("browse \(root)Car", columns: 100, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        // When the function is chosen with a year
        try app.tmux.sendKeys("!")
        try await app.expect("the operations") { $0.contains("Of the service") && $0.contains("Cars built before") }
        try await app.select("Cars built before")
        try app.tmux.sendKeys("Enter")
        try await app.expect("its year") { $0.contains("Year") && $0.contains("Enter saves") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "1990")
        try app.tmux.sendKeys("Enter")
        // Then its answer is listed, as many cars as the service counts
        try await app.expect("the service's answer") {
            $0.contains("Cars built before 1990") && $0.contains("1 of \(expected)") && !$0.contains("loading…")
        }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
