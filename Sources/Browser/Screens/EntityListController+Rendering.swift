import EntityCache
import ODataCore
import Terminal

/// Drawing the list and summarising it for the status line.
extension EntityListController {
    /// What a cell of `spec` shows for an entity whose values `value` gives: the column's template filled in, led
    /// by the mark of its criticality when the column has one (`UI.Criticality`), and that criticality's look.
    static func cell(
        _ spec: DisplayProfile.Column, _ value: (String) -> ODataValue?
    ) -> (text: String, criticality: CriticalityStyle?) {
        let text = ValueFormatter.fill(spec.value, value)
        guard let level = spec.criticality?.level(value), let criticality = CriticalityStyle(level) else {
            return (text, nil)
        }
        return (spec.marksCriticality && !text.isEmpty ? criticality.mark + " " + text : text, criticality)
    }

    /// All the text a row shows in `columns` (worked out once for all the rows filtered), for the local filter.
    func rowText(_ row: ListRow, columns: [DisplayProfile.Column]) -> String {
        guard let shown = row.shown else { return "" }
        let values = cellValues(of: shown)
        return columns.map { column in ValueFormatter.fill(column.value, values) }.joined(separator: " ")
    }

    /// Whether the bottom line of the content area holds the filter.
    var showsFilterLine: Bool { filter.isEditing || filter.isActive || confirmingDelete != nil || exporting != nil }

    public func layout(rows: Int, columns: Int) {
        // A header line, the rows, and the filter line when there is one.
        cursor.setPageSize(rows - 1 - (showsFilterLine ? 1 : 0))
        columnState.laidOutWidth = columns
        refreshBreadcrumb()
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        guard rows.count >= 2 else { return }
        let filterRow = showsFilterLine ? rows.upperBound - 1 : nil
        let listRows = (rows.lowerBound + 1)..<(filterRow ?? rows.upperBound)
        noteWidthsSeen()
        let shown = shownColumns
        let widths = columnWidths(shown, total: buffer.size.columns - SelectionGutter.width)
        var column = SelectionGutter.width
        buffer.fill(row: rows.lowerBound, style: CellStyle([.bold], role: .header))
        for (index, (spec, width)) in zip(shown, widths).enumerated() where width > 0 {
            // The sorted column says so, its title shortened rather than the mark cut off.
            let mark =
                columnState.sort.map { $0.column == index + columnState.offset ? ($0.descending ? " ▼" : " ▲") : "" }
                ?? ""
            let title =
                mark.isEmpty || spec.title.count + 2 <= width
                ? spec.title : String(spec.title.prefix(max(0, width - 2)))
            column =
                buffer.put(
                    title + mark, row: rows.lowerBound, column: column, width: width,
                    alignment: spec.align == "right" ? .trailing : .leading, style: CellStyle([.bold], role: .header))
                + 1
        }
        // Columns off either side are signalled in the header's corners.
        if columnState.offset > 0 {
            buffer.put("‹", row: rows.lowerBound, column: 0, style: CellStyle([.bold], role: .accent))
        }
        if hasColumnsToTheRight(width: buffer.size.columns) {
            buffer.put(
                "›", row: rows.lowerBound, column: buffer.size.columns - 1, style: CellStyle([.bold], role: .accent))
        }
        if rowCount == 0, let failure = failure {
            drawFailure(failure, in: listRows, into: &buffer)
        } else if !isKnown, let missingFilter {
            let lines = TextWrapper.wrap(missingFilter, width: max(1, buffer.size.columns - 2))
            for (offset, line) in zip(listRows, lines) {
                buffer.put(line, row: offset, column: 1, style: CellStyle(role: .accent))
            }
        } else if !isKnown {
            buffer.put(loadingText, row: listRows.lowerBound, column: 1, style: CellStyle(role: .muted))
        } else if rowCount == 0 {
            let message = filter.isActive ? "nothing matches “\(filter.text)”" : "(none)"
            buffer.put(message, row: listRows.lowerBound, column: 1, style: CellStyle(role: .muted))
        } else {
            var drawn: [Int: DrawnRow] = [:]
            for (offset, position) in cursor.visible.enumerated()
            where listRows.lowerBound + offset < listRows.upperBound {
                drawRow(
                    position, on: listRows.lowerBound + offset, columns: shown, widths: widths, into: &buffer,
                    drawn: &drawn)
            }
            drawnRows = drawn
        }
        if let filterRow, let pending = confirmingDelete {
            // The question takes the filter's line, in the list itself: the status line may be showing an error.
            buffer.fill(row: filterRow)
            buffer.put(
                pending.question, row: filterRow, column: 0,
                width: buffer.size.columns, style: CellStyle([.bold], role: .warning))
        } else if let filterRow, let progress = exportProgress, !filter.isEditing {
            buffer.fill(row: filterRow)
            buffer.put(progress, row: filterRow, column: 0, width: buffer.size.columns, style: CellStyle(role: .accent))
        } else if let filterRow {
            let style = CellStyle(role: filter.isEditing ? .accent : .muted)
            buffer.fill(row: filterRow)
            let end = buffer.put("/" + filter.text, row: filterRow, column: 0, style: style)
            if filter.isEditing { buffer.put("▏", row: filterRow, column: end, style: style) }
        }
    }

    /// "loading…", and while the first rows are on their way, how much has arrived since they were asked for.
    var loadingText: String {
        guard let now = environment.bytesArrived() else { return "loading…" }
        let since = now - (loadingBaseline ?? now)
        if loadingBaseline == nil { loadingBaseline = now }
        return since > 0 ? "loading… \(ByteCountText.format(since)) arrived" : "loading…"
    }

    /// Why the list could not be fetched, as the fetcher recorded it; nil while none failed.
    var failure: String? {
        switch source {
        case .list, .entity, .call: return rowModel.window?.state?.lastError
        case .related: return isKnown ? nil : relatedFailure
        }
    }

    /// A failed fetch, in the list area instead of rows: what happened, wrapped, and what to do.
    func drawFailure(_ failure: String, in rows: Range<Int>, into buffer: inout ScreenBuffer) {
        let width = max(1, buffer.size.columns - 2)
        let lines =
            ["This list could not be loaded."] + TextWrapper.wrap(failure, width: width) + [
                "", "Press r to try again.",
            ]
        // The advice stays on screen when the reason is too long: the reason is cut first.
        let shown =
            lines.count <= rows.count
            ? lines : Array(lines.prefix(max(0, rows.count - 2))) + lines.suffix(min(2, rows.count))
        for (offset, line) in shown.enumerated() {
            let role: ColorRole = offset == 0 ? .error : (offset == shown.count - 1 ? .accent : .normal)
            buffer.put(line, row: rows.lowerBound + offset, column: 1, width: width, style: CellStyle(role: role))
        }
    }

    /// Draws the row at `position` on `line`. A row drawn in the last frame with the same entity, columns and
    /// widths is copied from it (moving the cursor redraws every row in a frame that differs in two).
    func drawRow(
        _ position: Int, on line: Int, columns: [DisplayProfile.Column], widths: [Int],
        into buffer: inout ScreenBuffer, drawn: inout [Int: DrawnRow]
    ) {
        let row = row(at: position)
        let pending = (row?.shown?.pendingWrites ?? 0) + (row?.link?.pendingWrites ?? 0) > 0
        let linked = row?.shown.map { picking?.alreadyLinked.contains($0.key) == true } ?? false
        SelectionGutter.draw(
            selected: position == cursor.selected, pending: pending, linked: linked, line: line, into: &buffer)
        guard let row, let shown = row.shown else {
            buffer.put("loading…", row: line, column: SelectionGutter.width, style: CellStyle(role: .muted))
            return
        }
        let start = SelectionGutter.width
        let holder = draftHolders[shown.key]
        if let before = drawnRows[position], before.row == row, before.widths == widths, before.columns == columns,
            before.lineWidth == buffer.size.columns, before.draftHolder == holder
        {
            buffer.place(before.cells, row: line, column: start)
            drawn[position] = before
            rowsCopied += 1
            return
        }
        var column = start
        let values = cellValues(of: shown)
        for (spec, width) in zip(columns, widths) where width > 0 {
            let (text, criticality) = Self.cell(spec, values)
            let style = pending ? CellStyle(role: .warning) : criticality?.style ?? .plain
            column =
                buffer.put(
                    text, row: line, column: column, width: width,
                    alignment: spec.align == "right" ? .trailing : .leading, style: style) + 1
        }
        drawn[position] = DrawnRow(
            row: row, draftHolder: holder, columns: columns, widths: widths, lineWidth: buffer.size.columns,
            cells: buffer.cells(row: line, columns: start..<max(start, column - 1)))
    }

    public var takesText: Bool { filter.isEditing }

    public var statusSummary: String {
        var parts: [String] = []
        if let notice { parts.append(notice) }
        if let picking {
            let selected = row(at: cursor.selected)?.shown
            parts.append(
                selected.map { picking.alreadyLinked.contains($0.key) } == true
                    ? picking.alreadyLinkedNote : picking.title)
        }
        if isKnown, rowCount > 0 { parts.append("\(cursor.selected + 1) of \(rowCount)") }
        if columnState.offset > 0 { parts.append("columns \(columnState.offset + 1)+ of \(columns.count)") }
        if rowCount == 0, failure != nil {
            // The reason is in the list area, whole.
            parts.append("failed · r to retry")
        } else if case .related = source, let fetchedAt = relatedFetchedAt {
            if let age = environment.age(of: fetchedAt) { parts.append(age) }
        } else if let state = rowModel.window?.state {
            if !state.isComplete, state.totalCount == nil { parts.append("more to fetch") }
            if let age = environment.age(of: state.fetchedAt) { parts.append(age) }
            if let error = state.lastError { parts.append(error) }
        }
        if let provisional = rowModel.shownProvisional {
            parts.append("\(provisional.count) cached match\(provisional.count == 1 ? "" : "es") · asking the service")
        }
        if filter.isActive {
            let cachedOnly =
                searchReach.refused
                ? " in the rows cached: the service does not filter \(kindTitle) by "
                    + setProfileSearch.joined(separator: " or ")
                : " in the rows cached; 3 letters ask the service"
            let narrowed =
                searchReach.unsearchedFields.isEmpty
                ? ""
                : " (not in " + searchReach.unsearchedFields.joined(separator: " or ")
                    + ": the service does not filter by it)"
            let reach = searchReach.byService ? " (searched by the service)" : narrowed
            parts.append("filter “\(filter.text)”" + (searchReach.cachedRowsOnly ? cachedOnly : reach))
        }
        return parts.joined(separator: " · ")
    }
}
