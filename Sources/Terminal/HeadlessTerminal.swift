/// A ``TerminalDriver`` that lives in memory: fixed, settable size, injectable keys, recorded frames.
///
/// Used by tests (and later by headless UI tests of screens). It applies the same diff as the
/// real driver, so ``cellsSent`` says how many cells a real terminal would have been sent.
@MainActor
public final class HeadlessTerminal: TerminalDriver {
    /// What ``TerminalDriver/canShowBraille`` answers (tests of the ASCII chart set it false).
    public var canShowBraille = true
    /// The last theme set (``setTheme(_:)``).
    public private(set) var theme: Theme = .dark
    public func setTheme(_ theme: Theme) { self.theme = theme }
    /// The current size; change it with ``resize(to:)``.
    public private(set) var size: TerminalSize
    /// The colour capability screens see.
    public var colorCapability: ColorCapability
    /// Every presented frame as text, oldest first.
    public private(set) var frames: [[String]] = []
    /// For every present, the number of cells that differed from the previous frame.
    public private(set) var cellsSent: [Int] = []
    /// The last presented buffer, styles included.
    public private(set) var lastBuffer: ScreenBuffer?
    /// Whether ``suspend()`` was called without a matching ``resume()``.
    public private(set) var isSuspended = false
    /// How many times ``restore()`` actually gave the terminal back (0 or 1).
    public private(set) var restoreCount = 0

    /// Every text handed to ``copyToClipboard(_:)``, oldest first.
    public private(set) var copied: [String] = []

    private var pendingKeys: [Key] = []

    @discardableResult
    public func copyToClipboard(_ text: String) -> Bool {
        copied.append(text)
        return true
    }

    /// A headless terminal of `size` (80×24 by default).
    public init(
        size: TerminalSize = TerminalSize(columns: 80, rows: 24),
        colorCapability: ColorCapability = .palette256
    ) {
        self.size = size
        self.colorCapability = colorCapability
    }

    /// The last presented frame as text, one string per row (empty before the first present).
    public var lastFrame: [String] { frames.last ?? [] }

    /// Queues keys for the next ``readKeys()``.
    public func inject(_ keys: Key...) {
        pendingKeys.append(contentsOf: keys)
    }

    /// Queues keys for the next ``readKeys()``.
    public func inject(_ keys: [Key]) {
        pendingKeys.append(contentsOf: keys)
    }

    /// Changes the size and queues a ``Key/resize``, as a real terminal would.
    public func resize(to newSize: TerminalSize) {
        size = newSize
        pendingKeys.append(.resize)
    }

    public func present(_ frame: ScreenBuffer) {
        precondition(!isSuspended, "present(_:) while suspended")
        let previous = lastBuffer.flatMap { $0.size == frame.size ? $0 : nil }
        cellsSent.append(frame.changedCellCount(since: previous))
        frames.append(frame.lines)
        lastBuffer = frame
    }

    public func readKeys() -> [Key] {
        defer { pendingKeys.removeAll() }
        return pendingKeys
    }

    public func suspend() {
        isSuspended = true
    }

    public func resume() {
        isSuspended = false
        lastBuffer = nil
    }

    public func restore() {
        if restoreCount == 0 { restoreCount = 1 }
    }
}
