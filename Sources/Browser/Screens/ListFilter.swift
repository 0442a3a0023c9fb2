import EntityCache
import ODataCore
import Terminal

/// The `/` filter of a list screen: the text typed, and whether it is being typed; or the typed condition
/// `:filter` read from its text (``TypedFilter``), which the rows' values answer rather than their text.
struct ListFilter: Hashable {
    var text = ""
    var isEditing = false
    /// `:filter status = P`: the condition `text` says (nil for a plain search).
    var condition: QueryFilter?

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

    /// Whether a row matches: its values the condition, else its visible text the search (case-insensitive
    /// substring).
    func matches(_ entity: CachedEntity?, text haystack: @autoclosure () -> String) -> Bool {
        if let condition { return entity.map { entity in condition.matches { entity[$0] } } ?? false }
        return matches(haystack())
    }

    /// Whether a line of text matches the search (case-insensitive substring), on screens with no entities.
    func matches(_ haystack: String) -> Bool {
        text.isEmpty || haystack.lowercased().contains(text.lowercased())
    }

    /// What the service is asked: the condition, or any of `fields` containing the text, ignoring case.
    func serverExpression(fields: [String]) -> QueryFilter? {
        guard isActive else { return nil }
        if let condition { return condition }
        guard !fields.isEmpty else { return nil }
        return .any(fields.map { .contains($0, text) })
    }
}
