import CarDealerTestSupport
import Foundation
import Synchronization
import Terminal
import Testing

@testable import SSHGateway

/// Frames end at the browser's mark (issue 14): sent at once instead of after a quiet time, the marks removed.
@Suite struct FrameMarkTests {
    @Test func the_gateway_and_the_terminal_agree_on_the_mark() {
        #expect(PtyProcess.frameMark == FrameMark.bytes)
    }

    @Test func marks_are_removed_wherever_they_are_and_a_final_one_ends_the_frame() {
        let mark = PtyProcess.frameMark
        var frame = Array("ab".utf8) + mark + Array("cd".utf8) + mark
        #expect(PtyProcess.removeMarks(from: &frame))
        #expect(frame == Array("abcd".utf8))
        var open = Array("ab".utf8) + mark + Array("c".utf8)
        #expect(!PtyProcess.removeMarks(from: &open))
        #expect(open == Array("abc".utf8))
        // An escape that is not the mark, and half a mark, stay as they are
        var other = Array("\u{1B}[1mx\u{1B}_cd".utf8)
        #expect(!PtyProcess.removeMarks(from: &other))
        #expect(other == Array("\u{1B}[1mx\u{1B}_cd".utf8))
    }

    /// A program that writes a frame, sleeps a second, and writes more, read with a quiet time of 5 s: unmarked,
    /// the two writes leave as one message; marked, the frame leaves at its mark, without the mark's bytes.
    @Test(arguments: [false, true])
    func a_marked_frame_leaves_at_its_mark(marked: Bool) async throws {
        let mark = marked ? #"printf '\033_cdf\033\\'; "# : ""
        let script = "printf 'frame'; \(mark)sleep 1; printf 'next'"
        let process = try PtyProcess.spawn(
            SessionCommand(
                path: "/bin/sh", name: "sh", arguments: ["-c", script], environment: ["PATH": "/usr/bin:/bin"],
                cleanup: {}),
            columns: 80, rows: 24, memoryLimitBytes: 0, frameQuiet: .seconds(5), frameLongest: .seconds(10))
        let frames = Mutex<[String]>([])
        let ended = Mutex(false)
        process.run(
            output: { bytes, done in
                frames.withLock { $0.append(String(decoding: bytes, as: UTF8.self)) }
                done()
            },
            ended: { _ in ended.withLock { $0 = true } })
        #expect(try await eventually(seconds: 30) { ended.withLock { $0 } })
        let received = frames.withLock { $0 }
        #expect(received == (marked ? ["frame", "next"] : ["framenext"]), "\(received)")
    }
}
