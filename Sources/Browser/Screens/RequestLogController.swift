import EntityCache
import Foundation
import ScreenSeam
import Terminal

/// The `i` screen: the fetcher's request log, newest first, at local times; with the requests of the services
/// opened for value help (each logs in its own cache), interleaved by when they started.
@MainActor
public final class RequestLogController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb = "Requests"
    public let kindTitle = "Request log"
    let environment: BrowserEnvironment
    var entries: [RequestLogEntry] = []
    var cursor = ListCursor()
    var observations: [CacheObservation] = []
    /// Each logging service's latest entries, in the order they happened: this session's first.
    var logs: [[RequestLogEntry]] = []

    init(environment: BrowserEnvironment) {
        self.environment = environment
        self.screenID = environment.nextScreenID()
    }

    /// The most entries shown (of each service's log).
    static let limit = 500

    public func willAppear() {
        let services =
            [environment]
            + environment.referencedEnvironments.keys.sorted().compactMap {
                environment.referencedEnvironments[$0]
            }
        logs = services.map { (try? $0.cache.requestLog(limit: Self.limit)) ?? [] }
        merge()
        observations = services.enumerated().map { index, service in
            service.cache.observeRequestLog(limit: Self.limit) { [weak self] entries in
                guard let self, index < self.logs.count else { return }
                self.logs[index] = entries
                self.merge()
                self.environment.setNeedsDisplay()
            }
        }
    }

    /// `entries` from `logs`: latest first (each cache gives its log in the order it happened).
    func merge() {
        entries =
            logs.count == 1
            ? logs[0].reversed()
            : Array(logs.joined().sorted { $0.startedAt > $1.startedAt }.prefix(Self.limit))
        cursor.setCount(entries.count)
    }

    public func didDisappear() {
        for observation in observations { observation.cancel() }
        observations = []
    }

    public var statusSummary: String {
        let bytes = entries.reduce(0) { $0 + $1.bytes }
        return "\(entries.count) requests · \(ByteCountText.format(bytes))"
    }

    public func handle(_ key: Key) -> ScreenAction {
        if key == .char("i") { return .pop }
        if key == .enter || key == .right || key == .char("l") {
            guard cursor.selected < entries.count else { return .handled }
            let entry = entries[cursor.selected]
            return .push(
                TextViewController(
                    environment: environment, text: describe(entry), breadcrumb: "Request \(entry.id)",
                    kindTitle: "Request"
                ))
        }
        guard cursor.apply(key) else { return .ignored }
        environment.setNeedsDisplay()
        return .handled
    }

    public func layout(rows: Int, columns: Int) {
        cursor.setPageSize(rows - 1)
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        guard rows.count >= 2 else { return }
        let header = CellStyle([.bold], role: .header)
        buffer.fill(row: rows.lowerBound, style: header)
        var column = SelectionGutter.width
        for (title, width) in [("time", 8), ("outcome", 10), ("status", 6), ("bytes", 8), ("ms", 6)] {
            column = buffer.put(title, row: rows.lowerBound, column: column, width: width, style: header) + 1
        }
        buffer.put("URL", row: rows.lowerBound, column: column, style: header)
        guard !entries.isEmpty else {
            buffer.put("no requests yet", row: rows.lowerBound + 1, column: 1, style: CellStyle(role: .muted))
            return
        }
        for (offset, index) in cursor.visible.enumerated() {
            let line = rows.lowerBound + 1 + offset
            let entry = entries[index]
            SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
            let style = CellStyle(role: entry.outcome == .failed ? .error : .normal)
            var column = SelectionGutter.width
            let fields = [
                (environment.localTime(entry.startedAt), 8), (entry.outcome.rawValue, 10),
                (entry.status.map(String.init) ?? "–", 6),
                (ByteCountText.format(entry.bytes), 8), (String(Int(entry.duration * 1000)), 6),
            ]
            for (text, width) in fields {
                column = buffer.put(text, row: line, column: column, width: width, style: style) + 1
            }
            let detail = entry.error.map { entry.url + "  — " + $0 } ?? entry.url
            buffer.put(detail, row: line, column: column, width: max(0, buffer.size.columns - column), style: style)
        }
    }

    /// Everything the log holds about one request, a field per line.
    func describe(_ entry: RequestLogEntry) -> String {
        var lines = [
            "Method    " + entry.method,
            "URL       " + entry.url,
            "Outcome   " + entry.outcome.rawValue,
            "Status    " + (entry.status.map(String.init) ?? "none"),
            "Started   " + environment.localTime(entry.startedAt, withDate: true),
            "Duration  " + String(Int((entry.duration * 1000).rounded())) + " ms",
            "Bytes     " + ByteCountText.format(entry.bytes) + (entry.bytes >= 1024 ? " (\(entry.bytes) bytes)" : ""),
            "Attempts  " + String(entry.attempts),
        ]
        if let error = entry.error { lines.append("Error     " + error) }
        if let headers = entry.headers, !headers.isEmpty { lines += ["", "Headers (> sent, < received)", headers] }
        return lines.joined(separator: "\n")
    }

}

/// `532 B`, `12.4 KB`, `3.1 MB`.
public enum ByteCountText {
    public static func format(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: return "\(bytes) B"
        case ..<(1024 * 1024): return String(format: "%.1f KB", Double(bytes) / 1024)
        default: return String(format: "%.1f MB", Double(bytes) / 1_048_576)
        }
    }
}
