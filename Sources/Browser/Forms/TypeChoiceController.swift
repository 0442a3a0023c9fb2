import ODataCore
import ScreenSeam
import Terminal

/// `a` on a list whose entities may be of types derived from the set's (issue 37): which type the new one is, asked
/// before its form. The set's own type comes first (unless it is abstract), then each derived type that is not, by the
/// name the service gives it (`UI.HeaderInfo`'s `TypeName`) and its qualified name. Enter gives way to that type's
/// form (its own fields, `@odata.type` sent with it); Esc goes back to the list.
@MainActor
final class TypeChoiceController: ScreenController {
    struct Choice {
        /// Nil for the set's own type.
        var derived: EntityType?
        var label: String
        var name: String
    }

    let screenID: ScreenID
    let breadcrumb: String
    let kindTitle = "New"
    let environment: BrowserEnvironment
    let choices: [Choice]
    var cursor = ListCursor()
    /// The form of the type chosen (nil: the service does not let one be made).
    let form: (EntityType?) -> (any ScreenController)?
    var message: String?

    var statusSummary: String { "Enter chooses the type · Esc goes back" }

    /// The types a new entity of `setType`'s set may be: its own unless abstract, then each derived one that is not.
    static func choices(of setType: EntityType, in model: ServiceModel) -> [Choice] {
        var choices: [Choice] = []
        func label(_ type: EntityType) -> String { TextSanitizer.sanitize(type.ui.typeName ?? type.name) }
        if !setType.isAbstract {
            choices.append(Choice(derived: nil, label: label(setType), name: setType.qualifiedName))
        }
        for type in model.derivedTypes(of: setType) where !type.isAbstract {
            choices.append(Choice(derived: type, label: label(type), name: type.qualifiedName))
        }
        return choices
    }

    /// The question among `choices` (more than one: ``choices(of:in:)``).
    init(
        environment: BrowserEnvironment, choices: [Choice], breadcrumb: String,
        form: @escaping (EntityType?) -> (any ScreenController)?
    ) {
        self.environment = environment
        self.screenID = environment.nextScreenID()
        self.breadcrumb = breadcrumb
        self.choices = choices
        self.form = form
        cursor.setCount(choices.count)
    }

    func handle(_ key: Key) -> ScreenAction {
        defer { environment.setNeedsDisplay() }
        message = nil
        if cursor.apply(key) { return .handled }
        switch key {
        case .enter, .right, .char("l"):
            guard let choice = choices[safe: cursor.selected] else { return .handled }
            guard let form = form(choice.derived) else {
                message = "The service does not let a new \(choice.label) be made here."
                return .handled
            }
            return .replace(form)
        default:
            return .ignored
        }
    }

    func click(row: Int, column: Int, double: Bool) -> ScreenAction {
        // (the question takes the first line)
        let index = cursor.top + row - 1
        guard row >= 1, choices.indices.contains(index) else { return .ignored }
        cursor.move(by: index - cursor.selected)
        environment.setNeedsDisplay()
        return double ? handle(.enter) : .handled
    }

    func layout(rows: Int, columns: Int) {
        cursor.setPageSize(max(1, rows - 2))
    }

    func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let width = buffer.size.columns
        buffer.put(
            "Which type is the new one?", row: rows.lowerBound, column: 1, width: width - 2,
            style: CellStyle([.bold], role: .header))
        let footer = rows.upperBound - 1
        var line = rows.lowerBound + 1
        for index in cursor.visible where line < footer {
            let choice = choices[index]
            SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
            let end = buffer.put(
                choice.label, row: line, column: SelectionGutter.width, width: width / 2, style: CellStyle())
            buffer.put(
                TextSanitizer.sanitize(choice.name), row: line, column: end + 2, width: max(0, width - end - 3),
                style: CellStyle(role: .muted))
            line += 1
        }
        if let message {
            buffer.put(message, row: footer, column: 1, width: width - 2, style: CellStyle([.bold], role: .error))
        }
    }
}
