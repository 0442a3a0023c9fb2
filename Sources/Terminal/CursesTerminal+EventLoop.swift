import CNcurses
import CTermSupport
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// The event loop integration: input and the wake pipe as read sources on the main queue.
///
/// Intended use, from `main`:
///
/// ```swift
/// let terminal = try CursesTerminal()
/// terminal.start { events in
///     for event in events {
///         if case .signal(let signal) = event { terminal.restore(); exit(signal.exitStatus) }
///         // … update state from keys …
///     }
///     terminal.present(render())   // one frame per batch
/// }
/// dispatchMain()
/// ```
///
/// After every wake (input readable, SIGWINCH, a signal) all pending
/// input is drained with `get_wch` in no-delay mode; a resize surfaces there as ``Key/resize``.
/// The handler runs on the main actor once per batch and never for an empty batch, so nothing
/// is drawn while idle.
extension CursesTerminal {
    /// Starts delivering events to `handler` on the main queue. Call once, then `dispatchMain()`.
    public func start(onEvents handler: @escaping @MainActor ([TerminalEvent]) -> Void) {
        precondition(inputSource == nil, "start(onEvents:) called twice")
        let input = DispatchSource.makeReadSource(fileDescriptor: fileno(inputFile), queue: .main)
        input.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.handleWake(pipeBytes: [], handler: handler) }
        }
        let wake = DispatchSource.makeReadSource(fileDescriptor: cts_wake_read_fd(), queue: .main)
        wake.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.handleWake(pipeBytes: Self.drainWakePipe(), handler: handler)
            }
        }
        inputSource = input
        wakeSource = wake
        input.resume()
        wake.resume()
    }

    /// Stops the read sources (``restore()`` calls this).
    public func stop() {
        if isSuspended { inputSource?.resume() }
        inputSource?.cancel()
        wakeSource?.cancel()
        inputSource = nil
        wakeSource = nil
    }

    /// Turns pipe bytes and pending input into one batch of events.
    private func handleWake(pipeBytes: [UInt8], handler: @MainActor ([TerminalEvent]) -> Void) {
        var events: [TerminalEvent] = []
        for byte in pipeBytes {
            if let signal = TerminalSignal(rawValue: Int32(byte)) { events.append(.signal(signal)) }
        }
        let keys = readKeys()
        events.append(contentsOf: keys.map(TerminalEvent.key))
        if keys.isEmpty, pipeBytes.isEmpty, inputHasHungUp() {
            inputSource?.cancel()
            events.append(.signal(.hangup))
        }
        if !events.isEmpty { handler(events) }
    }

    /// Reads everything waiting in the (non-blocking) wake pipe.
    private static func drainWakePipe() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(cts_wake_read_fd(), $0.baseAddress, 64) }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    /// Whether the terminal went away: readable but nothing to read, and poll reports a hang-up.
    /// Without this a vanished tty would make the input source fire in a busy loop.
    private func inputHasHungUp() -> Bool {
        guard !inputHungUp else { return false }
        var descriptor = pollfd(fd: fileno(inputFile), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return false }
        let hungUp = descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
        if hungUp { inputHungUp = true }
        return hungUp
    }
}
