import ODataCore

/// The `/` filter of a list screen: the text typed, and whether it is being typed.
struct ListFilter: Hashable {
    var text = ""
    var isEditing = false

    var isActive: Bool { !text.isEmpty }

    /// Whether a row's visible text matches (case-insensitive substring).
    func matches(_ haystack: String) -> Bool {
        text.isEmpty || haystack.lowercased().contains(text.lowercased())
    }

    /// A server-side `$filter` for `fields`: any of them contains the text, ignoring case.
    func serverExpression(fields: [String]) -> String? {
        guard isActive, !fields.isEmpty else { return nil }
        let literal = ODataLiteral.quote(text.lowercased())
        return fields.map { "substringof(\(literal), tolower(\($0)))" }.joined(separator: " or ")
    }
}
