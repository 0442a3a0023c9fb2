import CarDealerTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 18: a `$metadata` that never comes left a blank terminal for 30 s in which `q` did nothing.
@Suite(.tags(.endToEnd), .serialized, .enabled(if: CardealerProcess.isAvailable, "needs tmux and a built cardealer"))
struct SilentServiceStartTests {
    /// A server on 127.0.0.1 that runs `serve` on a thread of its own for each connection (and closes it after).
    final class LoopbackServer: @unchecked Sendable {
        let listener: Int32
        let port: Int

        init(_ serve: @escaping @Sendable (Int32) -> Void) throws {
            (listener, port) = try LoopbackListener.open()
            let listener = self.listener
            Thread.detachNewThread {
                while let client = LoopbackListener.accept(listener) {
                    Thread.detachNewThread {
                        serve(client)
                        close(client)
                    }
                }
            }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }

        /// Accepts connections and reads requests but never answers.
        static func silent() throws -> LoopbackServer {
            try LoopbackServer { client in
                var buffer = [UInt8](repeating: 0, count: 4096)
                while recv(client, &buffer, buffer.count, 0) > 0 {}
            }
        }

        /// Answers at once, then sends the body 2,000 bytes every 200 ms (a slow link).
        static func trickling() throws -> LoopbackServer {
            try LoopbackServer { client in
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &buffer, buffer.count, 0)
                let head = Array(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 1000000\r\n\r\n".utf8)
                let chunk = Array(("<!--" + String(repeating: "-", count: 1992) + "-->").utf8)
                guard send(client, head, head.count, Int32(MSG_NOSIGNAL)) == head.count else { return }
                for _ in 0..<150 {
                    guard send(client, chunk, chunk.count, Int32(MSG_NOSIGNAL)) == chunk.count else { return }
                    usleep(200_000)
                }
            }
        }
    }

    @Test func a_silent_metadata_at_start_shows_what_it_waits_for_and_q_quits_at_once() async throws {
        // Given a service that never answers, and no cache of it yet
        let server = try LoopbackServer.silent()
        let browser = try CardealerProcess()
        defer { browser.kill() }
        let before = try await browser.ttySettings()
        // When the browser starts on it (its request bound far off: a machine busy with the whole suite was seen to
        // take over 20 s to draw, and the default 30 s bound then closed the screen before it was seen)
        try browser.launch([
            "browse", "http://127.0.0.1:\(server.port)/svc/", "--timeout", "300", "--request-timeout", "300",
        ])
        // Then the terminal opens at once, saying what it waits for and how to quit
        let waiting = try await browser.tmux.waitFor(timeout: .seconds(60)) {
            $0.contains("Loading the service's $metadata") && $0.contains("q quits")
        }
        #expect(waiting.matched, "never said it was loading:\n\(waiting.screen)")
        #expect(try browser.tmux.display("#{alternate_on}") == "1")
        // And after a few seconds it says how long it has waited
        let counting = try await browser.tmux.waitFor(timeout: .seconds(60)) { $0.contains("No answer yet after") }
        #expect(counting.matched, "\(counting.screen)")
        // When q is pressed, it quits with 0 and gives the terminal back
        try browser.tmux.sendKeys("q")
        let status = try await browser.exitStatus(timeout: .seconds(5))
        #expect(status == 0)
        #expect(try browser.tmux.display("#{alternate_on}") == "0")
        #expect(try await browser.ttySettings() == before)
    }

    @Test func a_slow_metadata_at_start_says_how_much_has_arrived() async throws {
        let server = try LoopbackServer.trickling()
        let browser = try CardealerProcess()
        defer { browser.kill() }
        try browser.launch(["browse", "http://127.0.0.1:\(server.port)/svc/"])
        // The count goes up while the document arrives
        let first = try await browser.tmux.waitFor(timeout: .seconds(10)) { $0.contains(" KB arrived") }
        #expect(first.matched, "never said how much arrived:\n\(first.screen)")
        func kilobytes(_ screen: String) -> Double? {
            guard let range = screen.range(of: #"[0-9.]+ KB arrived"#, options: .regularExpression) else { return nil }
            return Double(screen[range].split(separator: " ")[0])
        }
        let earlier = try #require(kilobytes(first.screen))
        let later = try await browser.tmux.waitFor(timeout: .seconds(10)) { (kilobytes($0) ?? 0) > earlier }
        #expect(later.matched, "the count stayed at \(earlier) KB:\n\(later.screen)")
        try browser.tmux.sendKeys("q")
        #expect(try await browser.exitStatus(timeout: .seconds(5)) == 0)
    }
}
