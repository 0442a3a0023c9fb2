import ODataCore
import Terminal

/// The `/` filter of a list screen: the text typed, and whether it is being typed.
struct ListFilter: Hashable {
    var text = ""
    var isEditing = false

    var isActive: Bool { !text.isEmpty }

    /// A key typed while the filter is edited: the new text when it changes (`""` clears it), nil otherwise.
    /// Enter, ↑ and ↓ end the editing and keep the text; Esc ends it and clears; Backspace on nothing ends it.
    mutating func type(_ key: Key) -> String? {
        switch key {
        case .char(let character):
            return text + String(character)
        case .backspace:
            guard !text.isEmpty else {
                isEditing = false
                return nil
            }
            return String(text.dropLast())
        case .enter, .down, .up:
            isEditing = false
            return nil
        case .escape:
            isEditing = false
            return ""
        case .ctrl("u"):
            return ""
        default:
            return nil
        }
    }

    /// Whether a row's visible text matches (case-insensitive substring).
    func matches(_ haystack: String) -> Bool {
        text.isEmpty || haystack.lowercased().contains(text.lowercased())
    }

    /// A server-side `$filter` for `fields`: any of them contains the text, ignoring case.
    /// v2 says `substringof(text, field)`; v4 `contains(field, text)`.
    func serverExpression(fields: [String], dialect: ODataDialect = .v2) -> String? {
        guard isActive, !fields.isEmpty else { return nil }
        let literal = ODataLiteral.quote(text.lowercased())
        return fields.map {
            dialect == .v4 ? "contains(tolower(\($0)), \(literal))" : "substringof(\(literal), tolower(\($0)))"
        }.joined(separator: " or ")
    }
}
