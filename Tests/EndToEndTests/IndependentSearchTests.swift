import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// A service's own free-text search, from servers we did not write (issues 33 and 37). odatapy's parts catalogue
/// (`.ci/independent/ownership_service.py`) declares `Capabilities.SearchRestrictions`: `/` in the built binary asks
/// its `$search`, so what matches is the service's rule (a make matches the parts that fit it, a field the list's
/// own filter would not look in). mock-sap refuses `$search` with a 501; a user's annotation document that says it
/// searches anyway gets a sentence, and `/` filters the fields instead.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentSearchTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// A configuration that pages by five and reads nothing ahead, so the list is not all here when `/` is typed.
    func pagedConfiguration() throws -> String {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-config")
        try FileManager.default.createDirectory(atPath: directory + "/cardealer", withIntermediateDirectories: true)
        try "page-size = 5\nprefetch = false\n".write(
            toFile: directory + "/cardealer/config.toml", atomically: true, encoding: .utf8)
        return directory
    }

    @Test(.enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"))
    func slash_asks_odatapys_search_and_shows_what_it_answers() async throws {
        let root = try #require(odatapyRoot)
        // What the service answers for the search, asked here by hand: the twelve parts that fit a Honda
        let asked = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(url: root + "Part?$search=honda&$count=true", dialect: .v4))
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any])
        let count = try #require(answer["@odata.count"] as? Int)
        #expect(count == 12)
        let configuration = try pagedConfiguration()
        defer { try? FileManager.default.removeItem(atPath: configuration) }
        let app = try Launch(
            "browse \(root)Part", columns: 100, rows: 14, environment: "XDG_CONFIG_HOME=\(configuration) ")
        defer { app.close() }
        try await app.expect("the parts") { $0.contains("Brake pad") && $0.contains("of 60") }
        try app.tmux.sendKeys("/")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "honda")
        try app.tmux.sendKeys("Enter")
        // The rows the service found (none of the parts' names says Honda: the list's own filter would find none)
        let screen = try await app.expect("the service's answer") {
            $0.contains("of \(count)") && $0.contains("(searched by the service)")
        }
        let rows = screen.split(separator: "\n").filter { $0.contains("Honda") || $0.contains("Ford") }
        #expect(rows.count >= 5 && rows.allSatisfy { $0.contains("Honda") }, "\(screen)")
        try app.tmux.sendKeys("Escape", "q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test(
        .enabled(if: IndependentVersion4BrowseTests.root != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)"))
    func a_search_mock_sap_refuses_is_said_and_the_fields_are_filtered_instead() async throws {
        let root = try #require(IndependentVersion4BrowseTests.root)
        let directory = try pagedConfiguration()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The user's annotation document says the sales orders are searched; mock-sap says 501 to $search
        let document = directory + "/search.xml"
        try """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml">
            <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="cardealer.test.search">
              <Annotations Target="com.sap.gateway.srvd_a2x.api_salesorder.v0001.api_salesorder_Container/SalesOrder">
                <Annotation Term="Capabilities.SearchRestrictions">
                  <Record><PropertyValue Property="Searchable" Bool="true"/></Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """.write(toFile: document, atomically: true, encoding: .utf8)
        let app = try Launch(
            "browse --annotations \(document) \(root)SalesOrder", columns: 140, rows: 14,
            environment: "XDG_CONFIG_HOME=\(directory) ")
        defer { app.close() }
        try await app.expect("the sales orders") { $0.contains("0000004712") && $0.contains("● online") }
        try app.tmux.sendKeys("/")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "4712")
        // The refusal in a sentence, and the order found by its number instead
        let screen = try await app.expect("the fallback") {
            $0.contains("The service's search failed") && $0.contains("0000004712")
        }
        #expect(!screen.contains("0000004713"), "\(screen)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the one order") { $0.contains("1 of 1") && $0.contains("filter “4712”") }
        try app.tmux.sendKeys("Escape", "q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
