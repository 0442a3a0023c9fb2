import Browser
import Dispatch
import Foundation
import ODataHTTP
import Session
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// The terminal from the first moment of a session: while `$metadata` loads it says what it waits for (and
/// for how long), and `q`, Esc, Ctrl-C or a signal quit at once; then the browser takes its events.
@MainActor
final class StartupScreen {
    /// The session's one screen, kept for the life of the process: the terminal must never be released off the
    /// main thread (its teardown is main-actor work), and the process ends with `exit`.
    private static var current: StartupScreen?

    let terminal: CursesTerminal
    private let serviceRoot: String
    /// Body bytes arrived so far, for the waiting frame.
    private let counter: TransferCounter?
    private let started = ContinuousClock.now
    private var handler: (([TerminalEvent]) -> Void)?
    /// What the user must do before loading can go on (sign in on another device), drawn above the rest.
    var notice: String? {
        didSet { draw() }
    }
    private var timer: DispatchSourceTimer?

    private init(terminal: CursesTerminal, serviceRoot: String, counter: TransferCounter?) {
        self.terminal = terminal
        self.serviceRoot = serviceRoot
        self.counter = counter
    }

    /// Opens the terminal, starts its events and draws the waiting frame once a second until ``hand(_:)``.
    static func open(
        serviceRoot: String, counter: TransferCounter? = nil, mouse: Bool = true, theme: Theme = .dark
    ) throws -> StartupScreen {
        let terminal: CursesTerminal
        do {
            var options = CursesTerminal.Options()
            options.mouseWheel = mouse
            options.theme = theme
            terminal = try CursesTerminal(options: options)
        } catch {
            throw SessionError("Cannot open the terminal: \(error)")
        }
        // From here on the screen is ncurses'; anything else goes to the log.
        AppLog.captureStandardError()
        let requested = ProcessInfo.processInfo.environment["TERM"] ?? ""
        if terminal.terminalType != requested {
            AppLog.write(
                "TERM=\(requested.isEmpty ? "(unset)" : requested) is not known to terminfo; drawing as "
                    + terminal.terminalType)
        }
        // Which colours, and why not more: COLORTERM announces 24-bit colour, but ncurses sends what terminfo says.
        let announced = ProcessInfo.processInfo.environment["COLORTERM"] ?? ""
        var colours = "colours: \(terminal.colorCapability) (terminfo \(terminal.terminalType))"
        if ["truecolor", "24bit"].contains(announced), terminal.colorCapability == .palette256 {
            colours +=
                "; COLORTERM=\(announced), but this terminfo entry has 256 colours, which the themes are "
                + "made of (TERM=xterm-direct sends them as 24-bit)"
        }
        AppLog.write(colours)
        let screen = StartupScreen(terminal: terminal, serviceRoot: serviceRoot, counter: counter)
        current = screen
        terminal.start { [weak screen] events in screen?.deliver(events) }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + .milliseconds(300), repeating: .milliseconds(250))
        timer.setEventHandler { [weak screen] in MainActor.assumeIsolated { screen?.draw() } }
        timer.resume()
        screen.timer = timer
        return screen
    }

    /// From now on every batch of events goes to `handler` (the browser).
    func hand(_ handler: @escaping ([TerminalEvent]) -> Void) {
        timer?.cancel()
        timer = nil
        self.handler = handler
    }

    /// Gives the terminal back (start-up failed; the caller says why on standard error).
    func close() {
        timer?.cancel()
        timer = nil
        terminal.restore()
        AppLog.releaseStandardError()
    }

    private func deliver(_ events: [TerminalEvent]) {
        if let handler { return handler(events) }
        for event in events {
            switch event {
            case .signal(let signal):
                AppLog.write("quitting on signal \(signal.rawValue) while loading $metadata")
                terminal.restore()
                exit(signal.exitStatus)
            case .key(.char("q")), .key(.escape), .key(.ctrl("c")):
                AppLog.write("quit while loading $metadata")
                terminal.restore()
                exit(0)
            case .key(.resize):
                draw()
            default:
                break
            }
        }
    }

    /// The waiting frame: what is loaded from where, for how long, and how to quit. Drawn only while the wait
    /// lasts longer than a moment, so a warm start goes straight to the browser's first frame.
    private func draw() {
        let size = terminal.size
        guard size.rows > 0, size.columns > 0, handler == nil else { return }
        let waited = (ContinuousClock.now - started).components.seconds
        var buffer = ScreenBuffer(size: size)
        let arrived = counter?.total ?? 0
        let lines = [
            notice.map { TextSanitizer.sanitize($0) } ?? "Loading the service's $metadata…",
            TextSanitizer.sanitize(serviceRoot),
            arrived > 0
                ? "\(ByteCountText.format(arrived)) arrived\(waited >= 1 ? " in \(waited) s" : "")"
                : (waited >= 3 ? "No answer yet after \(waited) s." : ""),
            "q quits",
        ]
        let top = max(0, (size.rows - lines.count) / 2)
        for (index, line) in lines.enumerated() where top + index < size.rows {
            let style = index == 3 ? CellStyle(role: .muted) : CellStyle.plain
            buffer.put(line, row: top + index, column: 0, width: size.columns, alignment: .center, style: style)
        }
        terminal.present(buffer)
    }
}
