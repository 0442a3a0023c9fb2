import Browser
import Terminal

extension BrowserApp {
    /// Sends keypresses and presented frames to `log`.
    ///
    /// A `key` line is written when a batch of keys reaches the app (before it is handled); a `frame`
    /// line after the frame was handed to the terminal. A frame line says how deep the navigation stack
    /// is, how many rows read `loading…`, and the first and last lines (breadcrumb and status line).
    func trace(to log: TraceLog) {
        onKeys = { keys in
            let now = TraceLog.now()
            for key in keys { log.record("key", ["key": String(describing: key)], at: now) }
        }
        onFrame = { [unowned self] frame in
            let now = TraceLog.now()
            let lines = frame.lines
            let loading = lines.filter { $0.contains("loading…") }.count
            log.record(
                "frame",
                [
                    "n": framesPresented, "depth": stack.controllers.count, "loading": loading,
                    "title": lines.first.map(Self.trimmed) ?? "", "status": lines.last.map(Self.trimmed) ?? "",
                ], at: now)
        }
    }

    private static func trimmed(_ line: String) -> String {
        String(line.reversed().drop { $0 == " " }.reversed())
    }
}
