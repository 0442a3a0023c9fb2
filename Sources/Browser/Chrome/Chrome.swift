import EntityCache
import Foundation
import Terminal

/// Draws what surrounds every screen: the breadcrumb on the first row and the status line on the last.
@MainActor
enum Chrome {
    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

    /// `People › Samson, Bob › Ford Explorer`, cut from the left when too long, with the
    /// screen's kind at the right.
    static func drawBreadcrumb(_ crumbs: [String], kind: String, into buffer: inout ScreenBuffer) {
        let width = buffer.size.columns
        let style = CellStyle([.bold], role: .title)
        buffer.fill(row: 0, style: style)
        let kindWidth = min(DisplayWidth.width(of: kind), max(0, width / 3))
        let (text, _) = breadcrumbText(crumbs, kind: kind, width: width)
        buffer.put(text, row: 0, column: 0, width: max(0, width - kindWidth - 2), style: style)
        if kindWidth > 0 {
            buffer.put(
                kind, row: 0, column: width - kindWidth, width: kindWidth, alignment: .trailing,
                style: CellStyle(role: .title))
        }
    }

    /// The breadcrumb's text at `width` and how many crumbs were cut from the left (`… › ` stands for them).
    static func breadcrumbText(_ crumbs: [String], kind: String, width: Int) -> (String, dropped: Int) {
        let kindWidth = min(DisplayWidth.width(of: kind), max(0, width / 3))
        let available = max(0, width - kindWidth - 2)
        var parts = crumbs.map(TextSanitizer.sanitize)
        var text = parts.joined(separator: " › ")
        var dropped = 0
        while DisplayWidth.width(of: text) > available, parts.count > 1 {
            parts.removeFirst()
            dropped += 1
            text = "… › " + parts.joined(separator: " › ")
        }
        return (text, dropped)
    }

    /// The level (0: the root screen) of the crumb drawn at `column`; nil between crumbs or past them.
    static func breadcrumbLevel(atColumn column: Int, crumbs: [String], kind: String, width: Int) -> Int? {
        let (_, dropped) = breadcrumbText(crumbs, kind: kind, width: width)
        var start = dropped > 0 ? 4 : 0
        for level in dropped..<crumbs.count {
            let end = start + DisplayWidth.width(of: TextSanitizer.sanitize(crumbs[level]))
            if column >= start, column < end { return level }
            start = end + 3
        }
        return nil
    }

    /// `● online  ⠹ 2 requests │ 12 of 200 · 3 s old │ ? help`, or the last error in words, or the request
    /// that has waited a few seconds for its answer (`waiting 5 s for Person?$top=50…`).
    /// `spinnerPhase` nil hides the requests in flight (they have not been out long enough to mention).
    ///
    /// `outbox` (what is pending, to resolve or failing) comes first whatever follows: offline is when it matters.
    static func drawStatus(
        status: SyncStatus?, outbox: (text: String, failing: Bool)? = nil, summary: String, spinnerPhase: Int?,
        into buffer: inout ScreenBuffer
    ) {
        let row = buffer.size.rows - 1
        let width = buffer.size.columns
        let style = CellStyle(role: .status)
        buffer.fill(row: row, style: style)
        var column = 0
        if let status {
            let (mark, role): (String, ColorRole) = status.isOnline ? ("● online", .success) : ("○ offline", .warning)
            column = buffer.put(mark, row: row, column: column, style: CellStyle(role: role))
            if status.inFlight > 0, let spinnerPhase {
                let spin = String(spinner[spinnerPhase % spinner.count])
                let noun = status.inFlight == 1 ? "request" : "requests"
                column = buffer.put("  \(spin) \(status.inFlight) \(noun)", row: row, column: column, style: style)
            }
            column = buffer.put(" │ ", row: row, column: column, style: style)
        }
        let help = "? help"
        let helpWidth = width >= 40 ? DisplayWidth.width(of: help) + 1 : 0
        if let outbox {
            column = buffer.put(
                outbox.text, row: row, column: column,
                style: outbox.failing ? CellStyle([.bold], role: .error) : CellStyle(role: .warning))
            column = buffer.put(" · ", row: row, column: column, style: style)
        }
        let room = max(0, width - column - helpWidth)
        if let error = currentError(status) {
            buffer.put(error, row: row, column: column, width: room, style: CellStyle([.bold], role: .error))
        } else if let slow = status?.slowRequest {
            buffer.put(slow + "…", row: row, column: column, width: room, style: CellStyle(role: .warning))
        } else {
            buffer.put(summary, row: row, column: column, width: room, style: style)
        }
        if helpWidth > 0 { buffer.put(help, row: row, column: width - helpWidth + 1, style: CellStyle(role: .muted)) }
    }

    /// The last error, while nothing has succeeded since.
    static func currentError(_ status: SyncStatus?) -> String? {
        guard let status, let error = status.lastError, let at = status.lastErrorAt else { return nil }
        if let success = status.lastSuccessAt, success > at { return nil }
        return error
    }
}
