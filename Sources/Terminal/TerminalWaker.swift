import CTermSupport

/// Wakes the terminal's event loop from any thread, so a ``TerminalEvent/wake`` is delivered
/// on the main queue.
///
/// Writes one byte to the wake pipe (async-signal-safe, never blocks; a full pipe means a
/// wake-up is already pending). Obtain it from ``CursesTerminal/waker``.
public struct TerminalWaker: Sendable {
    init() {}

    /// Asks the event loop for a ``TerminalEvent/wake``. Cheap; calls coalesce into one event per batch.
    public func wake() {
        cts_wake()
    }
}

/// Why the terminal could not be opened.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    /// A sentence a person can act on.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
