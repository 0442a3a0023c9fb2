import CarDealerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 18: a `$metadata` that never comes left a blank terminal for 30 s in which `q` did nothing.
@Suite(.serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct SilentServiceStartTests {
    /// A server on 127.0.0.1 that accepts connections and reads requests but never answers.
    final class SilentServer: @unchecked Sendable {
        let listener: Int32
        let port: Int

        init() throws {
            (listener, port) = try LoopbackListener.open()
            let listener = self.listener
            Thread.detachNewThread {
                while let client = LoopbackListener.accept(listener) {
                    Thread.detachNewThread {
                        var buffer = [UInt8](repeating: 0, count: 4096)
                        while recv(client, &buffer, buffer.count, 0) > 0 {}
                        close(client)
                    }
                }
            }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    @Test func a_silent_metadata_at_start_shows_what_it_waits_for_and_q_quits_at_once() async throws {
        // Given a service that never answers, and no cache of it yet
        let server = try SilentServer()
        let browser = try CardealerProcess()
        defer { browser.kill() }
        let before = try await browser.ttySettings()
        // When the browser starts on it
        try browser.launch(["browse", "http://127.0.0.1:\(server.port)/svc/"])
        // Then the terminal opens at once, saying what it waits for and how to quit
        let waiting = try await browser.tmux.waitFor(timeout: .seconds(10)) {
            $0.contains("Loading the service's $metadata") && $0.contains("q quits")
        }
        #expect(waiting.matched, "never said it was loading:\n\(waiting.screen)")
        #expect(try browser.tmux.display("#{alternate_on}") == "1")
        // And after a few seconds it says how long it has waited
        let counting = try await browser.tmux.waitFor(timeout: .seconds(10)) { $0.contains("No answer yet after") }
        #expect(counting.matched, "\(counting.screen)")
        // When q is pressed, it quits with 0 and gives the terminal back
        try browser.tmux.sendKeys("q")
        let status = try await browser.exitStatus(timeout: .seconds(5))
        #expect(status == 0)
        #expect(try browser.tmux.display("#{alternate_on}") == "0")
        #expect(try await browser.ttySettings() == before)
    }
}
