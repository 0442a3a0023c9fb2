import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Terminal
import Testing

@testable import Browser

/// `:save` as the screen shows it (issue 37): while a stream is saved the status line follows it, with a bar when its
/// length is known; Esc on a list stops the save and stays on the list; how it ended is said once. (The fetcher is a
/// recording seam here; the save itself is tried through the real stack in `StreamDownloadTests` and, against
/// odatapy, in `IndependentMediaTests`.)
@MainActor
@Suite struct SaveProgressTests {
    final class RecordingDownloads: DownloadIntents {
        let asked = Mutex<[StreamDownload]>([])
        let stops = Mutex(0)
        func download(_ download: StreamDownload) { asked.withLock { $0.append(download) } }
        func cancelDownload() { stops.withLock { $0 += 1 } }
        func upload(_ upload: StreamUpload) { uploads.withLock { $0.append(upload) } }
        let uploads = Mutex<[StreamUpload]>([])
    }

    func status(_ terminal: HeadlessTerminal) -> String { terminal.lastFrame.last ?? "" }

    @Test func the_status_line_follows_a_save_esc_stops_it_and_its_end_is_said_once() async throws {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 120, rows: 12))
        let downloads = RecordingDownloads()
        app.environment.downloads = downloads
        // A person is no media entity: nothing to save, in a sentence
        _ = app.handle([.key(.char(":"))] + "save /tmp/person.bin".map { .key(.char($0)) } + [.key(.enter)])
        #expect(status(terminal).contains("Nothing here to save"), "\(status(terminal))")
        #expect(downloads.asked.withLock { $0.isEmpty })
        // (what a command said stays until the next key)
        _ = app.handle([.key(.down)])
        // While a save runs (as the fetcher publishes it): how far, of how much, and how to stop it
        var running = DownloadProgress(
            id: 1, subject: "Photo(2)", path: "manual.pdf", received: 1 << 20, expected: 3 << 20,
            contentType: "application/pdf")
        cache.publishSyncStatus(SyncStatus(download: running))
        #expect(
            try await eventually {
                _ = app.handle([])
                return status(terminal).contains("Saving Photo(2) to manual.pdf: 1.0 MB of 3.0 MB [██████")
            }, "\(status(terminal))")
        #expect(status(terminal).contains("Esc stops it"))
        // Esc stops it, and the list stays
        _ = app.handle([.key(.escape)])
        #expect(downloads.stops.withLock { $0 } == 1)
        #expect(terminal.lastFrame.joined().contains("Renée"))
        // Its end, said once (until the next key)
        running.state = .cancelled
        cache.publishSyncStatus(SyncStatus(download: running))
        #expect(
            try await eventually {
                _ = app.handle([])
                return status(terminal).contains("Stopped saving Photo(2); nothing was written to manual.pdf")
            }, "\(status(terminal))")
        _ = app.handle([.key(.down)])
        #expect(!status(terminal).contains("Stopped saving"), "\(status(terminal))")
        // With no save running, Esc is the list's own again
        _ = app.handle([.key(.escape)])
        #expect(downloads.stops.withLock { $0 } == 1)
    }

    @Test func an_upload_is_said_on_the_status_line_as_it_runs_and_ends() async throws {
        let (app, terminal, cache) = try ScreenSnapshotTests().seededApp(size: TerminalSize(columns: 120, rows: 12))
        let downloads = RecordingDownloads()
        app.environment.downloads = downloads
        // A person is no media entity: nothing to upload to, in a sentence, and nothing asked
        _ = app.handle([.key(.char(":"))] + "upload /tmp/notes.txt".map { .key(.char($0)) } + [.key(.enter)])
        #expect(status(terminal).contains("Nothing here to upload to"), "\(status(terminal))")
        _ = app.handle([.key(.char("y"))])
        #expect(downloads.uploads.withLock { $0.isEmpty })
        // While it runs: what goes where, and how to stop it
        var running = DownloadProgress(
            id: 1, subject: "Photo(1)", path: "notes.txt", expected: 1320, contentType: "text/plain",
            isUpload: true)
        cache.publishSyncStatus(SyncStatus(download: running))
        #expect(
            try await eventually {
                _ = app.handle([])
                return status(terminal).contains("Uploading notes.txt (1.3 KB) to Photo(1) · Esc stops it")
            }, "\(status(terminal))")
        // Its end, in the service's words when refused
        running.state = .failed("its content was changed on the service since it was read (HTTP 412)")
        cache.publishSyncStatus(SyncStatus(download: running))
        #expect(
            try await eventually {
                _ = app.handle([])
                return status(terminal).contains("notes.txt was not uploaded to Photo(1): its content was changed")
            }, "\(status(terminal))")
    }
}
