import ODataCore

/// The row label a set gets without a profile, chosen from `$metadata`.
extension DisplayProfile {
    /// A row template and the properties the `/` filter searches, for an entity type's properties.
    ///
    /// In order: the `sap:text` a key property names (the service's own choice); a string property called like a label (`Name`, `Title`, `Description`, …); a
    /// first-name and last-name pair (`{FirstName} {LastName}`); the first string whose name ends
    /// in `Name`, `Title` or `Description` (`CompanyName`); the first string that is not a key;
    /// else the key properties by name (`OrderID {OrderID} · ProductID {ProductID}`).
    static func defaultLabel(properties: [Property], keys: [String]) -> (row: String, search: [String]) {
        // (an enum's members travel as text, but a service does not search them as text)
        let strings = properties.filter {
            $0.type == .primitive(.string) && $0.enumeration == nil && !keys.contains($0.name)
        }.map(\.name)
        let lower = strings.map { $0.lowercased() }
        func first(_ matches: (String) -> Bool) -> String? {
            lower.firstIndex(where: matches).map { strings[$0] }
        }
        var chosen: [String] = []
        let texts = keys.compactMap { key in properties.first { $0.name == key }?.textProperty }
            .filter { text in properties.contains { $0.name == text } }
        if let text = texts.first {
            chosen = [text]
        } else if let named = first({
            ["name", "title", "displayname", "label", "caption", "description", "text"].contains($0)
        }) {
            chosen = [named]
        } else if let given = first({ ["firstname", "givenname", "forename"].contains($0) }),
            let family = first({ ["lastname", "familyname", "surname"].contains($0) })
        {
            chosen = [given, family]
        } else if let named = ["name", "title", "description"].lazy.compactMap({ suffix in
            first { $0.hasSuffix(suffix) }
        }).first {
            chosen = [named]
        } else if let string = strings.first {
            chosen = [string]
        }
        guard chosen.isEmpty else { return (chosen.map { "{\($0)}" }.joined(separator: " "), chosen) }
        return (keys.map { "\($0) {\($0)}" }.joined(separator: " · "), [])
    }
}
