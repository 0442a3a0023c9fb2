import CarDealerTestSupport
import Foundation
import Testing

/// strace, when installed.
let straceExecutable = ["/usr/bin/strace", "/bin/strace"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// What `ssh -t host cardealer` sends: the browser's own writes to its terminal, counted by strace. A frame in
/// many writes becomes many packets over SSH; ncurses 6.4 wrote one per cursor move until the screen had been
/// through endwin and back (see `CursesTerminal.leaveInitialState`).
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil, "tmux is not installed"),
    .enabled(if: straceExecutable != nil, "strace is not installed (.ci/run installs it)")
)
struct FrameWritesTests {
    /// The writes to the terminal (fd 1) after the last byte of a key was read as `key`, up to the frame's end mark.
    /// (strace may split a call of one thread around another's: `read(0, <unfinished …>` … `<… read resumed>"B"`.)
    static func frameWrites(after key: String, in trace: [Substring]) -> [Substring]? {
        guard
            let read = trace.firstIndex(where: {
                $0.contains("read(0, \"\(key)\"") || ($0.contains("read resumed>") && $0.contains(">\"\(key)\""))
            })
        else { return nil }
        var writes: [Substring] = []
        for line in trace[(read + 1)...] where line.contains(" write(1, ") {
            if line.contains("\\33_cdf") { return writes }
            writes.append(line)
        }
        return nil
    }

    @Test func a_cursor_move_and_a_drill_down_each_leave_in_one_write() async throws {
        let strace = try #require(straceExecutable)
        let traceDirectory = try BuiltProducts.temporaryDirectory("cardealer-writes")
        defer { try? FileManager.default.removeItem(atPath: traceDirectory) }
        let tracePath = traceDirectory + "/writes.txt"
        // Given the demo under strace, each frame ended by the browser's mark (as serve-ssh asks for it)
        let app = try BrowserInTmuxTests.Launch(
            "--people 20", wrapper: "\(strace) -f -qq -s 64 -e trace=read,write -e signal=none -o \(tracePath) ",
            environment: "CARDEALER_FRAME_MARK=1 ")
        defer { app.close() }
        try await app.expect("the people list") { $0.contains("1 of 20") && !$0.contains("loading…") }

        // When the cursor moves one row (an arrow: application cursor keys are on from the start, or it would read
        // as three keys), then a person is opened, then the browser quits
        try app.tmux.sendKeys("Down")
        try await app.expect("the cursor on the second row") { $0.contains("2 of 20") }
        try app.tmux.sendKeys("Enter")
        try await app.expect("a person's cars") { $0.contains("People › ") && !$0.contains("loading…") }
        try app.tmux.sendKeys("q")
        try await app.expect("a clean exit") { $0.contains("EXIT=0") }

        // Then each of those frames went to the terminal in one write(2) (each is smaller than ncurses' buffer)
        let trace = try String(contentsOfFile: tracePath, encoding: .utf8).split(separator: "\n")
        let move = try #require(Self.frameWrites(after: "B", in: trace), "no frame after the arrow in the trace")
        #expect(move.count == 1, "the cursor move took \(move.count) writes:\n\(move.joined(separator: "\n"))")
        let drill = try #require(Self.frameWrites(after: "\\r", in: trace), "no frame after Enter in the trace")
        #expect(drill.count == 1, "the drill-down took \(drill.count) writes:\n\(drill.joined(separator: "\n"))")
    }
}
