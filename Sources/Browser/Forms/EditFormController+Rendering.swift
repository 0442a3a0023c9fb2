import ODataCore
import Terminal

/// Drawing the form: its fields, their errors, the caret, and the question at its foot.
extension EditFormController {
    public func render(into buffer: inout ScreenBuffer, rows area: Range<Int>) {
        guard area.count >= 3 else { return }
        let width = buffer.size.columns
        let labelWidth = min(24, max(8, (fields.map { DisplayWidth.width(of: $0.label) }.max() ?? 8) + 1))
        let boxStart = SelectionGutter.width + labelWidth + 2
        let boxWidth = max(4, width - boxStart - 1)
        buffer.put(
            parametersTitle ?? (creating == nil ? "Change \(breadcrumb)" : "New \(breadcrumb)"), row: area.lowerBound,
            column: 1,
            width: width - 2,
            style: CellStyle([.bold], role: .header))
        let listRows = (area.lowerBound + 1)..<(area.upperBound - 1)
        var line = 0
        for (index, field) in fields.enumerated() {
            for part in (field.heading == nil ? 0 : -1)..<(field.error == nil ? 1 : 2) {
                defer { line += 1 }
                let row = listRows.lowerBound + line - top
                guard listRows.contains(row) else { continue }
                if part == -1 {
                    buffer.put(
                        field.heading ?? "", row: row, column: 1, width: width - 2,
                        style: CellStyle([.bold], role: .header))
                    continue
                }
                if part == 1 {
                    buffer.put(
                        "  " + (field.error ?? ""), row: row, column: boxStart, width: boxWidth,
                        style: CellStyle(role: .error))
                    continue
                }
                SelectionGutter.draw(selected: index == focus, line: row, into: &buffer)
                let labelRole: ColorRole = field.isEditable ? .normal : .muted
                buffer.put(
                    field.label, row: row, column: SelectionGutter.width, width: labelWidth, alignment: .trailing,
                    style: CellStyle(field.error == nil ? [] : [.bold], role: field.error == nil ? labelRole : .error))
                if let reason = field.readOnly {
                    let shown = String(FieldInput.text(of: field.original).prefix(boxWidth))
                    // The reason first when the value would push it off the line.
                    let text =
                        shown.isEmpty
                        ? "(\(reason))"
                        : DisplayWidth.width(of: shown) > boxWidth / 2
                            ? "(\(reason))  " + shown : shown + "  (\(reason))"
                    buffer.put(text, row: row, column: boxStart, width: boxWidth, style: CellStyle(role: .muted))
                } else {
                    let hint = field.text.isEmpty ? field.note : nil
                    let box = hint.map { max(4, boxWidth - DisplayWidth.width(of: $0) - 2) } ?? boxWidth
                    drawBox(field, focused: index == focus, row: row, column: boxStart, width: box, into: &buffer)
                    if let hint, box < boxWidth {
                        buffer.put(
                            hint, row: row, column: boxStart + box + 2, width: boxWidth - box - 2,
                            style: CellStyle(role: .muted))
                    }
                }
            }
        }
        let footRow = area.upperBound - 1
        if confirmingCancel {
            let what = draft.isOpen ? "what you typed and the draft on the service" : "what you typed"
            buffer.put(
                "Discard \(what)? y discards, any other key goes back to the form.", row: footRow, column: 1,
                width: width - 2, style: CellStyle([.bold], role: .warning))
        } else if let message {
            buffer.put(message, row: footRow, column: 1, width: width - 2, style: CellStyle([.bold], role: .error))
        } else if let notice {
            buffer.put(notice, row: footRow, column: 1, width: width - 2, style: CellStyle(role: .muted))
        }
    }

    /// The field's text, scrolled so that the caret shows, with the caret drawn when focused.
    func drawBox(_ field: Field, focused: Bool, row: Int, column: Int, width: Int, into buffer: inout ScreenBuffer) {
        let before = TextSanitizer.sanitize(String(field.text.prefix(field.caret)))
        let after = TextSanitizer.sanitize(String(field.text.dropFirst(field.caret)))
        let caretColumn = DisplayWidth.width(of: before)
        let shift = max(0, caretColumn - width + 1)
        var cells: [(String, Int)] = []  // what to draw, and the column it starts at
        var at = 0
        for character in before + after {
            let cellWidth = DisplayWidth.width(of: character)
            if at >= shift, at - shift + cellWidth <= width { cells.append((String(character), at - shift)) }
            at += cellWidth
        }
        let style = CellStyle([.underline], role: focused ? .accent : .normal)
        buffer.put("", row: row, column: column, width: width, style: style)
        for (text, offset) in cells { buffer.put(text, row: row, column: column + offset, style: style) }
        guard focused else { return }
        let caretText = after.first.map(String.init) ?? " "
        buffer.put(
            caretText, row: row, column: column + caretColumn - shift, style: CellStyle([.reverse], role: .accent))
    }
}
