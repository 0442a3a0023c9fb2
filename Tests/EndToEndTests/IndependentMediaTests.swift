import CarDealerTestSupport
import Foundation
import ODataCore
import ODataHTTP
import Testing

/// Media entities from a service we did not write (issue 37): odatapy's `Photo` set (`HasStream`, in
/// `.ci/independent/ownership_service.py`) holds a small picture, a manual of 3.5 MB, and a photo whose content the
/// service says is on another origin. The built binary shows what each is, as the service's
/// `@odata.mediaContentType` says; `:save FILE` writes the content the service holds at `Photo(k)/$value` (read over
/// HTTP and compared byte for byte), from the detail and from the list's selected row; the other origin is refused in
/// a sentence, and nothing is written.
@Suite(
    .tags(.endToEnd),
    .serialized, .enabled(if: odatapyRoot != nil, "CARDEALER_ODATAPY_ROOT is not set (see .ci/checks)"),
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed")
)
struct IndependentMediaTests {
    typealias Launch = BrowserInTmuxTests.Launch

    /// What the service holds for `path`, read past the client.
    func held(_ path: String) async throws -> TransportResponse {
        let root = try #require(odatapyRoot)
        return try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: root + path, dialect: .v4))
    }

    @Test func a_media_entity_says_what_it_holds_and_save_writes_the_services_content_to_a_file() async throws {
        let root = try #require(odatapyRoot)
        let listed = try await held("Photo")
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.body)) as? [String: Any])?["value"] as? [[String: Any]])
        let manual = try #require(rows.first { $0["caption"] as? String == "Service manual" })
        let kind = try #require(manual["@odata.mediaContentType"] as? String)
        let content = try await held("Photo(2)/$value")
        #expect(content.status == 200 && content.body.count > 1_000_000)

        let app = try Launch("browse \(root)Photo", columns: 110, rows: 14)
        defer { app.close() }
        try await app.expect("the photos") { $0.contains("● online") && $0.contains("Service manual") }
        // From the list: the selected row's media.
        try await app.select("Front view")
        let picture = app.directory + "/front.png"
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":save \(picture)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the picture saved") { $0.contains("Saved Photo(1) to") }
        let front = try await held("Photo(1)/$value")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: picture))) == front.body)
        // From a detail: its media line says what the content is.
        try await app.select("Service manual")
        try app.tmux.sendKeys("Enter")
        // and how large it is, as the service's answer to a HEAD of it says
        let size = String(format: "%.1f MB", Double(content.body.count) / 1_048_576)
        try await app.expect("the manual's media line") { screen in
            screen.split(separator: "\n").contains { $0.contains("Media") && $0.contains(kind) && $0.contains(size) }
        }
        let file = app.directory + "/manual.pdf"
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":save \(file)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("saved") { $0.contains("Saved Photo(2) to") }
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))) == content.body)
        try app.tmux.sendKeys("Escape")
        try await app.expect("the photos again") { $0.contains("Elsewhere") && !$0.contains("Media") }

        // The photo whose content the service places on another origin: refused, and no file.
        try await app.select("Elsewhere")
        let elsewhere = app.directory + "/elsewhere.png"
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":save \(elsewhere)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("refused") { $0.contains("Photo(3) was not saved") && $0.contains("192.0.2.7") }
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        // A row that holds no media says so.
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":open Make")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the makes") { $0.contains("Skoda") }
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":save \(app.directory)/make.bin")
        try app.tmux.sendKeys("Enter")
        try await app.expect("nothing to save") { $0.contains("Nothing here to save") }
        // And no part file is left beside what was saved
        let left = try FileManager.default.contentsOfDirectory(atPath: app.directory).filter {
            $0.contains("cardealer-part")
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func upload_asks_then_puts_a_files_content_in_place_of_a_media_entitys() async throws {
        let root = try #require(odatapyRoot)
        let before = try await held("Photo(1)/$value")
        let app = try Launch("browse \(root)Photo", columns: 130, rows: 14)
        defer { app.close() }
        let file = app.directory + "/notes.txt"
        let text = Array(String(repeating: "Brake pads changed at 41,200 km.\n", count: 40).utf8)
        try Data(text).write(to: URL(fileURLWithPath: file))
        try await app.expect("the photos") { $0.contains("● online") && $0.contains("Front view") }
        try await app.select("Front view")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the picture's details") { $0.contains("Media") && $0.contains("image/png") }
        // Asked first, naming what is replaced and with what; any key but y keeps the content
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":upload \(file)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question") {
            $0.contains("y uploads notes.txt (1.3 KB, text/plain) in place of Photo(1) (now image/png)")
        }
        try app.tmux.sendKeys("n")
        try await app.expect("kept") { $0.contains("Nothing was uploaded.") }
        #expect(try await held("Photo(1)/$value").body == before.body)
        // y sends it: the service then holds the file's content, of the file's type
        try app.tmux.run("send-keys", "-t", app.tmux.target, "-l", ":upload \(file)")
        try app.tmux.sendKeys("Enter")
        try await app.expect("the question again") { $0.contains("y uploads notes.txt") }
        try app.tmux.sendKeys("y")
        try await app.expect("uploaded") { $0.contains("Uploaded notes.txt to Photo(1): 1.3 KB, text/plain") }
        let after = try await held("Photo(1)/$value")
        #expect(after.body == text)
        #expect(after.headers["content-type"]?.hasPrefix("text/plain") == true)
        // and the entity, read again, says so on its media line, with the new content's size
        try await app.expect("the new media line") { screen in
            screen.split(separator: "\n").contains { $0.contains("Media") && $0.contains("text/plain · 1.3 KB") }
        }
    }
}
