import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// The origin of a mock-sap of the delta tests' own (rows are deleted there), when
/// `.ci/checks/30-independent-writes.sh` started one.
let mockSAPDeltaOrigin = ProcessInfo.processInfo.environment["CARDEALER_MOCKSAP_DELTA_ORIGIN"]

/// Refresh by delta against SAP's shapes, on a service we did not write (issue 34): mock-sap (PyPI) answers
/// `Prefer: odata.track-changes` with a delta link — v2 `__delta` with `!deltatoken='…'`, v4 `@odata.deltaLink` with
/// `$deltatoken` — and the rows deleted since as tombstones (v2 `"deleted": true` in `__metadata`, v4 `@removed`).
/// Its `$metadata` declares no change tracking, as many SAP services do not; the user says so with an annotation
/// document (`--annotations`, `Capabilities.ChangeTracking` on the set). Checked on the service with an HTTP client
/// and in the built binary in tmux.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: mockSAPDeltaOrigin != nil, "CARDEALER_MOCKSAP_DELTA_ORIGIN is not set (see .ci/checks)")
)
struct IndependentSAPDeltaTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// A sales-order service of mock-sap's, in one dialect: where it is, its set, the annotation target of the set,
    /// and an order to change (with the column and the value it shows) and one to delete.
    struct Service: CustomTestStringConvertible, Sendable {
        var path: String
        var set: String
        var target: String
        var dialect: ODataDialect
        var changed: String
        var property: String
        var deleted: String
        var testDescription: String { dialect == .v4 ? "v4" : "v2" }
        var version4: Bool { dialect == .v4 }

        func root(_ origin: String) -> String { origin + path }
        func order(_ origin: String, _ id: String) -> String { root(origin) + set + "('\(id)')" }
    }

    static let services = [
        Service(
            path: "/sap/opu/odata/IWBEP/GWSAMPLE_BASIC/", set: "SalesOrderSet",
            target: "GWSAMPLE_BASIC.GWSAMPLE_BASIC_Entities/SalesOrderSet", dialect: .v2, changed: "500000010",
            property: "CustomerName", deleted: "500000009"),
        Service(
            path: "/sap/opu/odata4/sap/api_salesorder/srvd_a2x/sap/api_salesorder/0001/", set: "SalesOrder",
            target: "com.sap.gateway.srvd_a2x.api_salesorder.v0001.api_salesorder_Container/SalesOrder", dialect: .v4,
            changed: "0000004720", property: "SoldToParty", deleted: "0000004721"),
    ]

    /// An annotation document saying that `target` tracks changes.
    static func tracking(_ target: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
          <edmx:Reference Uri="https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Capabilities.V1.xml">
            <edmx:Include Namespace="Org.OData.Capabilities.V1" Alias="Capabilities"/>
          </edmx:Reference>
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="cardealer.test.tracking">
              <Annotations Target="\(target)">
                <Annotation Term="Capabilities.ChangeTracking">
                  <Record><PropertyValue Property="Supported" Bool="true"/></Record>
                </Annotation>
              </Annotations>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """
    }

    @Test(arguments: services)
    func r_asks_mock_sap_what_changed_and_the_list_shows_the_change_and_loses_the_deleted_order(
        _ service: Service
    ) async throws {
        let origin = try #require(mockSAPDeltaOrigin)
        let document = try BuiltProducts.temporaryDirectory("sap-delta") + "/tracking.xml"
        try Self.tracking(service.target).write(toFile: document, atomically: true, encoding: .utf8)
        let app = try Launch(
            "browse --annotations \(document) \(service.root(origin))\(service.set)", columns: 140, rows: 30)
        defer { app.close() }
        try await app.expect("the sales orders") {
            $0.contains("● online") && !$0.contains("loading…") && $0.contains(service.deleted)
        }
        // Given one order changed and one deleted on the service, past the browser
        let transport = try HTTPClientTransport(serviceRoot: service.root(origin), environment: [:], timeout: 10)
        let value = "9\(Int.random(in: 100_000...999_999))"
        var change = TransportRequest(
            method: service.version4 ? .patch : .merge, url: service.order(origin, service.changed),
            dialect: service.dialect)
        change.headers["Content-Type"] = "application/json"
        change.headers["If-Match"] = "*"
        change.body = Array(#"{"\#(service.property)":"\#(value)"}"#.utf8)
        #expect(try await transport.send(change).status == 204)
        var delete = TransportRequest(
            method: .delete, url: service.order(origin, service.deleted), dialect: service.dialect)
        delete.headers["If-Match"] = "*"
        #expect(try await transport.send(delete).status == 204)
        #expect(
            try await transport.send(
                TransportRequest(url: service.order(origin, service.deleted), dialect: service.dialect)
            ).status == 404)
        // When r refreshes the list
        try app.tmux.sendKeys("r")
        // Then it shows the change, and the deleted order is gone
        try await app.expect("the change, and the deleted order gone") {
            $0.contains(value) && !$0.contains(service.deleted) && !$0.contains("loading…")
        }
        // And the refresh asked mock-sap's delta link, which answered one change and one removal
        try app.tmux.sendKeys("i")
        try await app.expect("the request log") { $0.contains("Request log") }
        try app.tmux.sendKeys("Enter")
        let token = service.version4 ? "$deltatoken=" : "!deltatoken='"
        let request = try await app.expect("the delta request") {
            $0.contains("(delta: 1 changed, 1 removed)")
        }
        #expect(request.replacingOccurrences(of: "\n", with: "").contains(token), "\(request)")
        try app.tmux.sendKeys("Escape", "Escape", "q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
