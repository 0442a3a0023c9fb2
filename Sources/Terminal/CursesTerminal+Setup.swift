import CNcurses
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Opening steps for ``CursesTerminal``, each a small static function.
extension CursesTerminal {
    /// `setlocale(LC_ALL, "")`; if the codeset is not UTF-8, `LC_CTYPE` falls back to C.UTF-8
    /// (without it ncursesw drops non-ASCII text and line drawing degrades to letters).
    static func configureLocale() {
        setlocale(LC_ALL, "")
        localeWasUTF8 = isUTF8()
        if localeWasUTF8 { return }
        for candidate in ["C.UTF-8", "C.utf8", "en_US.UTF-8"] where setlocale(LC_CTYPE, candidate) != nil {
            if isUTF8() { return }
        }
    }

    /// Whether the user's own locale was UTF-8 (before any fallback).
    static var localeWasUTF8: Bool {
        get { userLocaleIsUTF8.load(ordering: .relaxed) }
        set { userLocaleIsUTF8.store(newValue, ordering: .relaxed) }
    }
    private static let userLocaleIsUTF8 = Atomic(true)

    /// Terminals (by `TERM` prefix) whose fonts have no braille.
    static let terminalsWithoutBraille = ["vt52", "vt100", "vt102", "vt220", "vt320", "linux", "cons25", "ansi"]

    /// Braille needs a UTF-8 locale and a terminal with the glyphs.
    static func brailleShows(term: String) -> Bool {
        localeWasUTF8 && !terminalsWithoutBraille.contains { term == $0 || term.hasPrefix($0 + "-") }
    }

    private static func isUTF8() -> Bool {
        guard let codeset = cd_codeset() else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }

    /// stdin/stdout when both are terminals; otherwise `/dev/tty` for both directions.
    static func openFiles() throws -> (
        input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>, ownsTTY: Bool
    ) {
        if isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1,
            let input = cd_stdin_file(), let output = cd_stdout_file()
        {
            return (input, output, false)
        }
        guard let tty = fopen("/dev/tty", "r+") else {
            throw TerminalError(
                "No terminal to draw on: stdin/stdout are not a terminal and /dev/tty cannot be opened "
                    + "(over SSH, connect with ssh -t).")
        }
        return (tty, tty, true)
    }

    /// Whether `descriptor` is this process's controlling terminal. Only there does Ctrl-C become SIGINT: a
    /// terminal that is not (a browser the SSH gateway runs in its own process group, not its own session) drops
    /// the signal keys in cbreak mode, so there the browser reads them raw.
    static func isControllingTerminal(_ descriptor: Int32) -> Bool {
        let owner = tcgetsid(descriptor)
        return owner >= 0 && owner == getsid(0)
    }

    /// Takes the screen through `endwin` and back once, as a suspend and resume would. ncurses 6.4 (20221231)
    /// flushes its output after every cursor move until then (`_nc_mvcur` flushes while the screen is still in
    /// its initial state): a frame went out in one write(2) per move and colour change — 36 for a drill-down,
    /// each its own packet over `ssh -t`. After it, doupdate writes a frame at once.
    static func leaveInitialState() {
        def_prog_mode()
        endwin()
        reset_prog_mode()
        clearok(cd_stdscr(), true)
        cd_refresh()
        restoreKeypad()
    }

    /// Application cursor keys again, now: `endwin` turned them off, and ncurses would turn them on only at the
    /// next read, after the terminal had already sent that key in the other mode (`ESC [ B` rather than
    /// `ESC O B`), which terminfo does not name, so the first arrow pressed would read as three keys.
    static func restoreKeypad() {
        keypad(cd_stdscr(), true)
    }

    /// `newterm` with `$TERM`, then `xterm-256color`, then `vt100`.
    ///
    /// `newterm` returns NULL (it does not exit) when terminfo lacks the entry.
    static func newTerm(
        input: UnsafeMutablePointer<FILE>, output: UnsafeMutablePointer<FILE>
    ) -> (OpaquePointer, String)? {
        var candidates: [String] = []
        if let term = environment("TERM"), !term.isEmpty { candidates.append(term) }
        candidates += ["xterm-256color", "vt100"]
        for type in candidates {
            if let screen = newterm(type, output, input) { return (screen, type) }
        }
        return nil
    }

    /// Input modes: cbreak (Ctrl-C stays a signal) where the terminal can send signals, else raw (Ctrl-C comes as
    /// a key, and quits as one); noecho, keypad, non-blocking, short ESC delay, wheel.
    static func configureInput(options: Options, keysSignal: Bool, descriptor: Int32) {
        if keysSignal { cbreak() } else { raw() }
        noecho()
        nonl()
        let window = cd_stdscr()
        keypad(window, true)
        nodelay(window, true)
        leaveok(window, true)
        intrflush(window, false)
        set_escdelay(options.escapeDelay)
        curs_set(0)
        if options.mouseWheel {
            mouseinterval(0)
            mousemask(cd_wheel_mask() | cd_button1_pressed(), nil)
        }
        // Ctrl-S and Ctrl-Q are keys here (a form saves with Ctrl-S), not the terminal's flow control, which would
        // stop all output until Ctrl-Q (raw mode turns it off too). Last: `intrflush` sets the modes ncurses holds,
        // which still have it. `endwin` gives the shell its own modes back.
        var modes = termios()
        if tcgetattr(descriptor, &modes) == 0, modes.c_iflag & tcflag_t(IXON) != 0 {
            modes.c_iflag &= ~tcflag_t(IXON)
            tcsetattr(descriptor, TCSANOW, &modes)
        }
    }

    /// Starts colours unless disabled, `NO_COLOR` is set, or the terminal has none.
    static func configureColors(enabled: Bool) -> ColorCapability {
        guard enabled, environment("NO_COLOR").map(\.isEmpty) ?? true, has_colors() else { return .monochrome }
        guard start_color() == OK else { return .monochrome }
        use_default_colors()
        let count = cd_colors()
        // A direct-colour entry (`xterm-direct`) says so with the RGB flag and 2^24 colours; a colour number
        // is then a 0xRRGGBB value, so palette numbers would come out as near-black blues.
        if count >= 0x100_0000 || tigetflag("RGB") > 0 { return .directColor }
        if count >= 256 { return .palette256 }
        if count >= 8 { return .ansi16 }
        return .monochrome
    }

    static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Registers (once) an `atexit` hook that gives the terminal back if nobody did.
    static func registerExitHook() {
        guard !exitHookRegistered else { return }
        exitHookRegistered = true
        // A plain C function, not a closure: a closure here would be main-actor isolated like this type, and
        // `exit` called off the main thread (a start-up failure reported by the argument parser) would trap.
        atexit(endCursesAtExit)
    }

    private static var exitHookRegistered = false
}

/// Leaves curses mode if the process exits while it is on; runs on whatever thread calls `exit`.
private func endCursesAtExit() {
    if isendwin() == false { endwin() }
}
