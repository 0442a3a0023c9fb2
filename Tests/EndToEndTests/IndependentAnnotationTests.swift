import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// A service we did not write describes its screens (issue 33), and the built binary in tmux draws them with no
/// profile: mock-sap's v4 `api_salesorder` with its annotations inline in `$metadata`, and its v2 `GWSAMPLE_BASIC`
/// with an annotation document of its own, which its service document names. The expected headers are the labels
/// mock-sap 0.22.0 (pinned in `.ci/checks`) declares for the `UI.LineItem` fields, in its order.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: mockSAPRoot != nil, "CARDEALER_MOCKSAP_ROOT is not set (see .ci/checks)")
)
struct IndependentAnnotationTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// Whether the header row of a list (the screen's second line) holds `titles`, in that order and nothing else
    /// between them but spaces.
    static func hasHeaders(_ screen: String, _ titles: [String]) -> Bool {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count > 1 else { return false }
        var rest = Substring(lines[1])
        for title in titles {
            guard let found = rest.range(of: title), rest[..<found.lowerBound].allSatisfy(\.isWhitespace) else {
                return false
            }
            rest = rest[found.upperBound...]
        }
        return rest.allSatisfy(\.isWhitespace)
    }

    @Test func a_v4_list_has_the_columns_and_title_its_inline_annotations_give() async throws {
        let root = try #require(IndependentVersion4BrowseTests.root)
        let app = try Launch("browse \(root)", columns: 140, rows: 44)
        defer { app.close() }
        // The sets by their UI.HeaderInfo plural names, with the set's own name beside
        try await app.expect("the entity sets") {
            $0.contains("Sales Orders  (SalesOrder)") && $0.contains("Sales Order Items  (SalesOrderItem)")
        }
        try app.tmux.sendKeys("Enter")
        let screen = try await app.expect("the sales orders") { $0.contains("0000004712") && $0.contains("● online") }
        let columns = ["Sales Order", "Sold-To Party", "Order Type", "Net Value", "Currency", "Overall Status"]
        #expect(Self.hasHeaders(screen, columns), "\(screen)")
        #expect(screen.split(separator: "\n").first?.hasSuffix("Sales Orders") == true)
        // The detail is named by the type's TypeName, in the sections its UI.Facets declare, in their order: field
        // groups under their labels, the items and partners as lines to enter, the rest under "More"
        try app.tmux.sendKeys("Enter")
        let detail = try await app.expect("the order's detail") {
            $0.contains("Sales Orders › 0000004712") && $0.contains("Administrative Data")
        }
        let lines = detail.split(separator: "\n").map { $0.dropFirst().trimmingCharacters(in: .whitespaces) }
        let sections = [
            "General Information", "Amounts", "Dates and Status", "Items", "Partners", "Administrative Data", "More",
        ]
        let found = sections.compactMap { section in
            lines.firstIndex { $0 == section || ($0.hasPrefix(section + " ") && $0.hasSuffix("›")) }
        }
        #expect(found.count == sections.count && found == found.sorted(), "\(detail)")
        // (mock-sap declares Scale 3 and no currency for it: three places, as Fiori's decimal type shows it)
        #expect(detail.contains("Net Value") && detail.contains("24,786.720"))
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }

    @Test func a_v2_list_has_the_columns_its_annotation_document_gives() async throws {
        let root = try #require(mockSAPRoot)
        let app = try Launch("browse \(root)SalesOrderSet", columns: 140, rows: 20)
        defer { app.close() }
        let screen = try await app.expect("the sales orders") { $0.contains("500000001") && $0.contains("● online") }
        let columns = [
            "Sa. Ord. ID", "Company Name", "Gross Amount", "Currency", "Lifecycle Status", "Delivery Status",
        ]
        #expect(Self.hasHeaders(screen, columns), "\(screen)")
        #expect(screen.split(separator: "\n").first?.hasPrefix("Sales Orders") == true)
        // A second start on the same cache (a warm start: the document comes from it) shows the same columns
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let directory = app.directory
        try app.tmux.typeLine(
            "clear; XDG_CACHE_HOME=\(directory)/cache XDG_STATE_HOME=\(directory)/state \(binary) browse "
                + "\(root)SalesOrderSet; echo AGAIN=$?")
        let again = try await app.expect("the sales orders again") {
            $0.contains("500000001") && !$0.contains("EXIT=0")
        }
        #expect(Self.hasHeaders(again, columns), "\(again)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("AGAIN=0") }
    }

    /// `:filter` with typed conditions on a list the service pages (five rows a page here, of its 25 orders): the
    /// field by its `UI.SelectionFields` name and the amount by its label, and the rows shown are the ones the
    /// service itself answers for the same filter, which it was asked: read-ahead is off (`prefetch = false`), so
    /// the list is not all here when the filter is typed (15 of 25 rows: the window's three pages).
    @Test func a_typed_filter_shows_the_orders_the_service_answers_for_it() async throws {
        let root = try #require(IndependentVersion4BrowseTests.root)
        // What the service answers, asked here with the filter written by hand
        let asked = try await HTTPClientTransport(timeout: 10).send(
            TransportRequest(
                url: root + "SalesOrder?$select=SalesOrder&$filter="
                    + "OverallSDProcessStatus%20eq%20'C'%20and%20TotalNetAmount%20gt%20100000", dialect: .v4))
        let answer = try JSONSerialization.jsonObject(with: Data(asked.body)) as? [String: Any]
        let expected = ((answer?["value"] as? [[String: Any]]) ?? []).compactMap { $0["SalesOrder"] as? String }
        #expect(expected.count >= 3, "the service's own answer: \(expected)")
        let directory = try BuiltProducts.temporaryDirectory("cardealer-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/cardealer", withIntermediateDirectories: true)
        try "page-size = 5\nprefetch = false\n".write(
            toFile: directory + "/cardealer/config.toml", atomically: true, encoding: .utf8)
        let app = try Launch(
            "browse \(root)SalesOrder", columns: 140, rows: 14, environment: "XDG_CONFIG_HOME=\(directory) ")
        defer { app.close() }
        try await app.expect("the sales orders") { $0.contains("0000004712") && $0.contains("● online") }
        // The palette completes the service's selection fields first
        try app.tmux.sendKeys(":")
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", "filter OverallSD")
        try app.tmux.sendKeys("Tab")
        try await app.expect("the field completed") { $0.contains(":filter OverallSDProcessStatus") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", " = C and Net Value > 100000")
        try app.tmux.sendKeys("Enter")
        let screen = try await app.expect("the orders the service answers") { screen in
            expected.allSatisfy { screen.contains($0) } && !screen.contains("asking the service")
        }
        let shown = screen.split(separator: "\n").compactMap { line in
            line.range(of: "00000047[0-9][0-9]", options: .regularExpression).map { String(line[$0]) }
        }
        #expect(Set(shown) == Set(expected), "\(screen)")
        #expect(screen.contains("/OverallSDProcessStatus = C and Net Value > 100000"), "\(screen)")
        // And the service was asked for it, the decimal as v4 spells it: the newest request that is not a page of
        // the list's window
        try app.tmux.sendKeys("i")
        try await app.expect("the request log") { $0.contains("Request log") && $0.contains("fetched") }
        let filtered = { (screen: String) in
            // (a long URL is wrapped over lines of the screen, each after a space)
            let joined = screen.replacingOccurrences(of: "\n ", with: "")
            return joined.contains("OverallSDProcessStatus eq 'C' and TotalNetAmount gt 100000")
                || joined.contains("OverallSDProcessStatus%20eq%20'C'%20and%20TotalNetAmount%20gt%20100000")
        }
        var found = false
        for _ in 0..<6 where !found {
            try app.tmux.sendKeys("Enter")
            try await app.expect("a request") { $0.contains("Requests › Request ") }
            found = try await app.tmux.waitFor(timeout: .milliseconds(600), filtered).matched
            try app.tmux.sendKeys("Escape", "j")
            try await app.expect("the request log again") { $0.contains("Request log") }
        }
        #expect(found, "no request asked the service for the filter")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
