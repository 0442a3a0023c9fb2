import CNcurses
import CTermSupport
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// The real ``TerminalDriver``: ncursesw on the controlling terminal.
///
/// Opening it (``init(options:)``):
/// * sets the locale from the environment, falling back to `C.UTF-8` when the codeset is not UTF-8;
/// * calls `newterm` on stdin/stdout when both are terminals, otherwise on `/dev/tty`; when `TERM`
///   is unknown to terminfo it falls back to `xterm-256color`, then `vt100` (see ``terminalType``);
/// * cbreak, noecho, keypad, non-blocking reads, a 25 ms ESC delay, hidden cursor, mouse wheel;
/// * colours per ``ColorCapability`` with the terminal's default background; none under `NO_COLOR`;
/// * SIGWINCH chained to ncurses' handler and SIGINT/SIGTERM/SIGHUP turned into wake-pipe bytes.
///
/// Giving it back: ``restore()`` is idempotent, and an `atexit` hook calls `endwin()` if nobody
/// did. On a ``TerminalEvent/signal(_:)`` or a thrown error the app calls ``restore()`` then exits.
/// Only one instance may be open at a time (ncurses keeps global state).
@MainActor
public final class CursesTerminal: TerminalDriver {
    /// How to open the terminal.
    public struct Options: Sendable {
        /// Milliseconds ncurses waits after ESC for the rest of a sequence. Short so Esc feels instant.
        public var escapeDelay: Int32 = 25
        /// Report the mouse wheel and left-button clicks as keys. Off leaves the terminal's own selection
        /// untouched (with it on, most terminals select with Shift held).
        public var mouseWheel = true
        /// Use colours when the terminal has them and `NO_COLOR` is not set.
        public var colors = true
        /// The colour scheme.
        public var theme: Theme = .dark

        /// The defaults.
        public init() {}
    }

    /// The terminfo entry that was used: `$TERM`, or a fallback when `$TERM` was unknown.
    public let terminalType: String
    /// Whether the chart may draw braille (see ``TerminalDriver/canShowBraille``).
    public let canShowBraille: Bool
    /// The colour capability chosen at start.
    public let colorCapability: ColorCapability

    let screen: OpaquePointer
    let inputFile: UnsafeMutablePointer<FILE>
    let outputFile: UnsafeMutablePointer<FILE>
    let ownsTTY: Bool
    /// Whether each frame's end is marked on the output (``FrameMark``).
    let marksFrames: Bool
    var palette: ColorPalette
    var lastPresented: ScreenBuffer?
    var glibcAgreement: [[wchar_t]: Bool] = [:]
    var isRestored = false
    var isSuspended = false
    var inputSource: DispatchSourceRead?
    var wakeSource: DispatchSourceRead?
    var inputHungUp = false
    static var isOpen = false

    /// Opens the terminal. Throws when there is no terminal or no usable terminfo entry.
    public init(options: Options = Options()) throws {
        precondition(!Self.isOpen, "only one CursesTerminal may be open at a time")
        Self.configureLocale()
        let files = try Self.openFiles()
        guard let (screen, type) = Self.newTerm(input: files.input, output: files.output) else {
            if files.ownsTTY { fclose(files.input) }
            throw TerminalError(
                "Could not start the terminal: TERM=\(Self.environment("TERM") ?? "(unset)") is not known to "
                    + "terminfo and neither are xterm-256color nor vt100. Install ncurses-base or set TERM.")
        }
        // TERM=dumb (some IDE terminals, scripts) cannot move the cursor: a full-screen program can only garble it.
        guard cd_has_string_capability("cup") != 0 else {
            endwin()
            delscreen(screen)
            if files.ownsTTY { fclose(files.input) }
            throw TerminalError(
                "TERM=\(type) cannot move the cursor, and CarDealer draws a full screen. Run it in a terminal "
                    + "emulator, or set TERM (e.g. TERM=xterm-256color) if yours is one.")
        }
        guard cts_wake_pipe_open() >= 0 else {
            endwin()
            throw TerminalError("Could not create the wake pipe: \(String(cString: strerror(errno))).")
        }
        self.screen = screen
        self.inputFile = files.input
        self.outputFile = files.output
        self.ownsTTY = files.ownsTTY
        self.marksFrames = Self.environment(FrameMark.environmentName) != nil
        self.terminalType = type
        self.canShowBraille = Self.brailleShows(term: type)
        let input = fileno(files.input)
        Self.configureInput(options: options, keysSignal: Self.isControllingTerminal(input), descriptor: input)
        self.colorCapability = Self.configureColors(enabled: options.colors)
        self.palette = ColorPalette(capability: colorCapability, theme: options.theme)
        palette.install()
        Self.leaveInitialState()
        cts_install_resize_handler()
        cts_install_termination_handlers()
        Self.isOpen = true
        Self.registerExitHook()
    }

    /// The current size (ncurses updates it when it reports ``Key/resize``).
    public var size: TerminalSize {
        var rows: Int32 = 0
        var columns: Int32 = 0
        cd_getmaxyx(cd_stdscr(), &rows, &columns)
        return TerminalSize(columns: Int(columns), rows: Int(rows))
    }

    public func readKeys() -> [Key] {
        guard !isRestored, !isSuspended else { return [] }
        var keys: [Key] = []
        var value: wint_t = 0
        for _ in 0..<4096 {
            let status = cd_get_wch(&value)
            if status == ERR { break }
            let raw: KeyDecoder.RawInput
            if status == KEY_CODE_YES {
                if Int32(value) == KEY_MOUSE {
                    var event = MEVENT()
                    guard getmouse(&event) == OK else { continue }
                    raw = .mouse(buttonState: UInt32(event.bstate), row: Int(event.y), column: Int(event.x))
                } else {
                    raw = .keyCode(Int32(value))
                }
            } else {
                raw = .character(UInt32(value))
            }
            keys.append(KeyDecoder.decode(raw))
        }
        return keys
    }

    public func suspend() {
        guard !isRestored, !isSuspended else { return }
        isSuspended = true
        inputSource?.suspend()
        def_prog_mode()
        endwin()
    }

    public func resume() {
        guard !isRestored, isSuspended else { return }
        isSuspended = false
        reset_prog_mode()
        lastPresented = nil
        clearok(cd_stdscr(), true)
        cd_refresh()
        Self.restoreKeypad()
        inputSource?.resume()
    }

    public func restore() {
        guard !isRestored else { return }
        isRestored = true
        stop()
        cts_restore_signal_handlers()
        if isSuspended {
            isSuspended = false
        } else {
            // Without an alternate screen (vt100, linux console) the last frame would stay after quitting.
            if cd_has_string_capability("smcup") == 0 {
                erase()
                refresh()
            }
            endwin()
        }
        delscreen(screen)
        if ownsTTY { fclose(inputFile) }
        Self.isOpen = false
    }
}
