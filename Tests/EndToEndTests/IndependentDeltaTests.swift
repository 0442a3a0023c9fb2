import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Refresh by delta link against a service we did not write (issue 34): odatapy's car set declares
/// `Capabilities.ChangeTracking` (`.ci/independent/ownership_service.py`), so a list of cars is read with
/// `Prefer: odata.track-changes` and comes with odatapy's own delta link; `r` asks that link, and what odatapy's
/// change log answers (a change, a deletion) is what the screen shows. Checked on the service with an HTTP client
/// and in the built binary in tmux.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)")
)
struct IndependentDeltaTests {
    typealias Launch = BrowserInTmuxTests.Launch

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await HTTPClientTransport(timeout: 10).send(request)
    }

    /// The ETag odatapy gives `car` now.
    func etag(_ root: String, _ car: Int) async throws -> String? {
        try await send(TransportRequest(url: root + "Car(\(car))", dialect: .v4)).etag
    }

    @Test func r_reads_what_changed_by_the_delta_link_and_the_list_shows_the_change_and_loses_the_deleted_car()
        async throws
    {
        let root = try #require(odatapyRoot)
        // Given two cars of the test's own, numbered above every other test's so that they come last
        let number = Int.random(in: 100_000...999_000)
        for (car, make) in [(number, "Lada \(number)"), (number + 1, "Moskvich \(number)")] {
            var create = TransportRequest(method: .post, url: root + "Car", dialect: .v4)
            create.headers["Content-Type"] = "application/json"
            create.body = Array(#"{"carID":\#(car),"make":"\#(make)","model":"2107"}"#.utf8)
            #expect(try await send(create).status == 201)
        }
        // And the list of cars in the browser, at its end
        let app = try Launch("browse \(root)Car", columns: 120, rows: 30)
        defer { app.close() }
        try await app.expect("the cars") { $0.contains("● online") && !$0.contains("loading…") }
        try app.tmux.sendKeys("G")
        try await app.expect("the test's cars") { $0.contains("Lada \(number)") && $0.contains("Moskvich \(number)") }
        // When, on the service, one is changed and the other deleted
        var change = TransportRequest(method: .patch, url: root + "Car(\(number))", dialect: .v4)
        change.headers["Content-Type"] = "application/json"
        change.headers["If-Match"] = try await etag(root, number)
        change.body = Array(#"{"make":"Volga \#(number)"}"#.utf8)
        #expect((200..<300).contains(try await send(change).status))
        var delete = TransportRequest(method: .delete, url: root + "Car(\(number + 1))", dialect: .v4)
        delete.headers["If-Match"] = try await etag(root, number + 1)
        #expect(try await send(delete).status == 204)
        // And r is pressed
        try app.tmux.sendKeys("r")
        // Then the list shows the change and no longer the deleted car
        try await app.expect("the change, and the deleted car gone") {
            $0.contains("Volga \(number)") && !$0.contains("Lada \(number)") && !$0.contains("Moskvich \(number)")
        }
        // And the refresh was one read of the delta link, which named the deletion
        try app.tmux.sendKeys("i")
        try await app.expect("the request log") { $0.contains("Request log") && $0.contains("$deltatoken") }
        let log = try app.tmux.capture()
        let pattern = #"delta: [0-9]+ changed, [1-9][0-9]* removed"#
        // (other tests change cars on the same service meanwhile: a car new to the list makes the pages be read
        // again after the delta, and that read may join the log while it is looked at: each request, newest first,
        // is opened until the delta read is found)
        let isDelta = { (screen: String) in screen.range(of: pattern, options: .regularExpression) != nil }
        var detail = ""
        for _ in 0..<20 {
            try app.tmux.sendKeys("Enter")
            try await app.expect("a request") { $0.contains("Requests › Request ") }
            let opened = try await app.tmux.waitFor(timeout: .milliseconds(600), isDelta)
            if opened.matched {
                detail = opened.screen
                break
            }
            try app.tmux.sendKeys("Escape", "j")
            try await app.expect("the request log again") { $0.contains("Request log") }
        }
        #expect(isDelta(detail) && detail.contains("$deltatoken"), "\(log)")
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }
    }
}
