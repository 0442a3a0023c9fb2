/// The size of a terminal or buffer in character cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    /// Number of columns.
    public var columns: Int
    /// Number of rows.
    public var rows: Int

    /// Creates a size; negative values are clamped to zero.
    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// `"80×24"`.
    public var description: String { "\(columns)×\(rows)" }
}

/// How many colours the terminal can show, after `NO_COLOR` is taken into account.
/// A colour scheme. Each reads on both light and dark backgrounds: text keeps the terminal's own foreground and
/// background, and every coloured role has a contrast that holds on either (see ``ColorPalette``).
public enum Theme: String, CaseIterable, Sendable {
    /// The default: muted blues and ambers, tuned for dark backgrounds.
    case dark
    /// Darker hues for light backgrounds.
    case light
    /// Black on yellow selection, white-on-black status, saturated roles.
    case highContrast = "high-contrast"
    /// Attributes only (bold, reverse, dim), as under `NO_COLOR`.
    case monochrome
}

public enum ColorCapability: Hashable, Sendable {
    /// No colour: roles are shown with attributes only (reverse, bold, dim).
    case monochrome
    /// The 8/16 ANSI colours.
    case ansi16
    /// The xterm 256-colour palette.
    case palette256
    /// 24-bit colour, as a direct-colour terminfo entry (`xterm-direct`, `RGB` flag) gives it: colours are sent
    /// as red, green and blue, so a theme looks the same whatever the terminal's own palette is.
    case directColor
}

/// Something that happened on the terminal, delivered in batches by the event loop.
public enum TerminalEvent: Hashable, Sendable {
    /// A key, mouse wheel step or resize (``Key/resize``).
    case key(Key)
    /// SIGINT, SIGTERM or SIGHUP arrived. The handler should call `restore()` and exit.
    case signal(TerminalSignal)
}

/// A termination signal turned into an event by the wake pipe.
public enum TerminalSignal: Int32, Hashable, Sendable {
    /// SIGHUP: the controlling terminal went away (for example a dropped SSH session).
    case hangup = 1
    /// SIGINT: Ctrl-C.
    case interrupt = 2
    /// SIGTERM: asked to stop.
    case terminate = 15

    /// The conventional exit status for a process ended by this signal (128 + number).
    public var exitStatus: Int32 { 128 + rawValue }
}

/// The seam between screens and a terminal device.
///
/// Screens render a whole frame into a ``ScreenBuffer`` and call ``present(_:)``; the driver
/// compares it with the previously presented frame and sends only the cells that changed.
/// All calls happen on the main actor (ncurses is not thread-safe).
@MainActor
public protocol TerminalDriver: AnyObject {
    /// The current size in cells. Changes after a ``Key/resize`` event.
    var size: TerminalSize { get }

    /// The colour capability the driver settled on.
    var colorCapability: ColorCapability { get }

    /// Shows `frame`, sending only cells that differ from the last presented frame.
    ///
    /// A frame whose size differs from the last one (first frame, resize) is drawn in full.
    func present(_ frame: ScreenBuffer)

    /// Returns every input event that is pending, without blocking (possibly none).
    func readKeys() -> [Key]

    /// Gives the terminal back temporarily (for example to run a pager); see ``resume()``.
    func suspend()

    /// Takes the terminal again after ``suspend()`` and forces the next frame to be drawn in full.
    func resume()

    /// Gives the terminal back for good. Idempotent; safe to call on every exit path.
    func restore()

    /// Asks the terminal to put `text` on the system clipboard (OSC 52, which tmux and terminals over SSH pass
    /// on; a terminal may refuse it silently). False when nothing could be sent.
    @discardableResult
    func copyToClipboard(_ text: String) -> Bool
    /// Switches the colour scheme and redraws everything on the next frame.
    func setTheme(_ theme: Theme)
    /// Whether braille cells (U+2800…) can be shown: false for a locale that is not UTF-8 and for terminals whose
    /// fonts lack them (vt100, the Linux console).
    var canShowBraille: Bool { get }
}

extension TerminalDriver {
    public var canShowBraille: Bool { true }
    public func setTheme(_ theme: Theme) {}
}
