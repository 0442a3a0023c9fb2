import CPtySupport
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One session's browser: a child process on its own pseudo-terminal.
///
/// A thread per process reads the pty and hands the output on in **frames**: once output starts, it keeps
/// reading until the program has been quiet for a few milliseconds (ncurses writes one screen update in many
/// small writes, one per colour change), so that a screen update leaves as one SSH data message, one packet.
/// A program that marks the end of each frame (the browser under `CARDEALER_FRAME_MARK`, see `FrameMark` in the
/// Terminal target) has it sent at the mark, without waiting for the quiet time; the marks are removed.
/// The thread waits for each frame to be written before it reads on, so a slow client slows only its own
/// browser (whose writes to the pty block), never the server or other sessions.
final class PtyProcess: Sendable {
    let pid: pid_t
    private let descriptor: Int32
    /// Whether the process was reaped and its descriptor closed, and the keystrokes it has not read yet: kept
    /// together, since a write to the descriptor must never follow its close.
    private struct State {
        var reaped = false
        var closed = false
        var pendingInput: [UInt8] = []
    }
    private let state = Mutex(State())

    /// Quiet time that ends a frame (0: every read is sent as it is), and the longest one frame may be held back.
    private let frameQuiet: Int32
    private let frameLongest: Duration
    /// The bytes that end a frame (the same as `Terminal.FrameMark.bytes`, checked by a test).
    static let frameMark: [UInt8] = [0x1B, 0x5F, 0x63, 0x64, 0x66, 0x1B, 0x5C]
    /// Input held for a browser that is not reading; beyond it, keystrokes are dropped (and logged by the caller).
    static let pendingInputLimit = 64 * 1024

    private init(pid: pid_t, descriptor: Int32, frameQuiet: Duration, frameLongest: Duration) {
        self.pid = pid
        self.descriptor = descriptor
        self.frameLongest = frameLongest
        self.frameQuiet = Int32(clamping: frameQuiet.nanoseconds / 1_000_000)
    }

    /// Starts `command` on a new pty of the given size.
    static func spawn(
        _ command: SessionCommand, columns: Int, rows: Int, memoryLimitBytes: UInt64, frameQuiet: Duration,
        frameLongest: Duration = .milliseconds(15)
    ) throws -> PtyProcess {
        let arguments = [command.name] + command.arguments
        let environment = command.environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var descriptor: Int32 = -1
        let pid = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                cpty_spawn(
                    command.path, argv, envp, UInt16(clamping: columns), UInt16(clamping: rows), memoryLimitBytes,
                    &descriptor)
            }
        }
        guard pid > 0 else {
            throw HostKeyError("Could not start \(command.path): \(String(cString: strerror(errno))).")
        }
        return PtyProcess(pid: pid, descriptor: descriptor, frameQuiet: frameQuiet, frameLongest: frameLongest)
    }

    /// Runs the reading thread: `output` gets each frame and must call its completion once the frame is written
    /// (or dropped); `ended` gets the exit status (128 + signal for a signal) once the process is reaped.
    func run(
        output: @escaping @Sendable ([UInt8], @escaping @Sendable () -> Void) -> Void,
        ended: @escaping @Sendable (Int32) -> Void
    ) {
        let thread = Thread { [self] in
            readUntilEnd(output: output)
            ended(reap())
        }
        thread.name = "cardealer-pty-\(pid)"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    private func readUntilEnd(output: @escaping @Sendable ([UInt8], @escaping @Sendable () -> Void) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var ended = false
        while !ended {
            let wantsWrite = state.withLock { !$0.pendingInput.isEmpty }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN) | (wantsWrite ? Int16(POLLOUT) : 0), revents: 0)
            let ready = poll(&poller, 1, wantsWrite ? 20 : 1000)
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            if poller.revents & Int16(POLLOUT) != 0 { flushInput() }
            guard poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 else { continue }
            var frame: [UInt8] = []
            let started = ContinuousClock.now
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count > 0 {
                    frame.append(contentsOf: buffer[0..<count])
                    // The program said the frame is whole: send it now.
                    if Self.removeMarks(from: &frame) { break }
                } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
                    // Nothing more for now: wait a moment for the rest of the screen update.
                } else {
                    // 0, or EIO once the last holder of the terminal end has closed it: the program is gone.
                    ended = true
                    break
                }
                guard frameQuiet > 0, frame.count < 64 * 1024, ContinuousClock.now - started < frameLongest
                else { break }
                var more = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                if poll(&more, 1, frameQuiet) <= 0 { break }
            }
            if !frame.isEmpty {
                let written = DispatchSemaphore(value: 0)
                output(frame) { written.signal() }
                // A channel that never completes a write (it cannot: NIO fails writes on a closed channel) must
                // not hold the thread forever.
                _ = written.wait(timeout: .now() + 60)
            }
        }
    }

    /// Takes every frame mark out of `frame`; true when the frame ended with one (nothing after it yet).
    static func removeMarks(from frame: inout [UInt8]) -> Bool {
        let mark = frameMark
        guard frame.count >= mark.count, frame.contains(mark[0]) else { return false }
        let endsWithMark = frame.suffix(mark.count).elementsEqual(mark)
        var kept: [UInt8] = []
        kept.reserveCapacity(frame.count)
        var index = 0
        var found = false
        while index < frame.count {
            if frame[index] == mark[0], index + mark.count <= frame.count,
                frame[index..<(index + mark.count)].elementsEqual(mark)
            {
                index += mark.count
                found = true
                continue
            }
            kept.append(frame[index])
            index += 1
        }
        if found { frame = kept }
        return endsWithMark
    }

    /// Waits for the process to end, then reaps it; the descriptor is closed after.
    private func reap() -> Int32 {
        var info = siginfo_t()
        // WNOWAIT: wait without reaping, so that the pid cannot be reused while `hangUp` may still signal it.
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return state.withLock { state in
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            state.reaped = true
            state.closed = true
            close(descriptor)
            guard result == pid else { return 1 }
            // WIFEXITED / WEXITSTATUS / WTERMSIG as the C macros compute them.
            let signal = status & 0x7f
            return signal == 0 ? (status >> 8) & 0xff : 128 + signal
        }
    }

    /// Keystrokes for the browser; false when they were dropped because it has not read what came before.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        state.withLock { state in
            guard !state.closed else { return true }
            guard state.pendingInput.count + bytes.count <= Self.pendingInputLimit else { return false }
            state.pendingInput += bytes
            writePending(&state)
            return true
        }
    }

    private func flushInput() { state.withLock { writePending(&$0) } }

    /// Writes what the browser will take of the pending keystrokes; called with the state locked.
    private func writePending(_ state: inout State) {
        while !state.pendingInput.isEmpty, !state.closed {
            let written = state.pendingInput.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                state.pendingInput.removeFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }

    /// Tells the terminal its new size, and the browser by SIGWINCH (the pty is not its controlling terminal, so
    /// the kernel does not).
    func resize(columns: Int, rows: Int) {
        let resized = state.withLock { state in
            guard !state.closed else { return false }
            return cpty_resize(descriptor, UInt16(clamping: columns), UInt16(clamping: rows)) == 0
        }
        if resized { signal(SIGWINCH) }
    }

    /// SIGHUP (the browser restores the terminal and exits), then SIGKILL after `grace` if it is still there.
    func hangUp(grace: Duration) {
        signal(SIGHUP)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(grace.nanoseconds))) { [self] in
            signal(SIGKILL)
        }
    }

    private func signal(_ number: Int32) {
        state.withLock { state in
            guard !state.reaped else { return }
            kill(pid, number)
        }
    }
}

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<Result>(
    _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { pointers.forEach { free($0) } }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
