// TerminalDemo: draws hostile server-like text through the Terminal module.
//
// Used by TerminalTests inside tmux (and handy by hand): j/k or ↑/↓ move the highlight,
// q quits with status 0, Ctrl-C / SIGTERM / SIGHUP restore the terminal and exit 128+signal.
// `--corpus` draws complex scripts and emoji sequences instead (see Corpus.swift).
import Dispatch
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// Rows that would misbehave if they reached the terminal raw.
let hostileRows: [String] = [
    "osc: \u{1B}]0;pwned-title\u{07}after-osc",
    "csi: \u{1B}[31mred\u{1B}[0m plain",
    "bel: ding\u{07}dong",
    "c1 csi: x\u{9B}2Jy",
    "rlo: abc\u{202E}fdp.exe",
    "zwsp: a\u{200B}b",
    "tab/lf: a\tb\nc",
    "emoji: 👍🏽 👨‍👩‍👧‍👦 🇫🇷 end",
    "cjk: 日本語テキスト end",
    "combining: e\u{301}te\u{301} end",
]

@MainActor
final class Demo {
    let terminal: CursesTerminal
    var selected = 0
    var lastKey = "none"

    init(terminal: CursesTerminal) {
        self.terminal = terminal
    }

    func handle(_ events: [TerminalEvent]) {
        for event in events {
            switch event {
            case .signal(let signal):
                terminal.restore()
                exit(signal.exitStatus)
            case .key(.char("q")):
                terminal.restore()
                exit(0)
            case .key(.char("j")), .key(.down), .key(.mouseWheelDown):
                selected = min(selected + 1, hostileRows.count - 1)
            case .key(.char("k")), .key(.up), .key(.mouseWheelUp):
                selected = max(selected - 1, 0)
            case .key(let key):
                lastKey = "\(key)"
            }
        }
        render()
    }

    func render() {
        let size = terminal.size
        var frame = ScreenBuffer(size: size)
        frame.put("terminal-demo  (q quits)", row: 0, column: 0, style: CellStyle([.bold], role: .title))
        if CommandLine.arguments.contains("--corpus") {
            Corpus.render(into: &frame, from: 2)
        } else {
            renderHostileRows(into: &frame)
        }
        let status = "\(size) \(terminal.terminalType) \(terminal.colorCapability) key=\(lastKey)"
        frame.fill(row: size.rows - 1, style: CellStyle(role: .status))
        frame.put(status, row: size.rows - 1, column: 0, style: CellStyle(role: .status))
        terminal.present(frame)
    }

    func renderHostileRows(into frame: inout ScreenBuffer) {
        let size = frame.size
        for (index, text) in hostileRows.enumerated() where index + 2 < size.rows - 1 {
            let style = index == selected ? CellStyle(role: .selection) : .plain
            if index == selected { frame.fill(row: index + 2, style: style) }
            frame.put(text, row: index + 2, column: 2, width: max(0, size.columns - 4), style: style)
        }
    }
}

MainActor.assumeIsolated {
    let terminal: CursesTerminal
    do {
        terminal = try CursesTerminal()
    } catch {
        let message = "terminal-demo: \(error)\n"
        _ = message.withCString { write(STDERR_FILENO, $0, strlen($0)) }
        exit(1)
    }
    let demo = Demo(terminal: terminal)
    terminal.start { demo.handle($0) }
    demo.render()
}
dispatchMain()
