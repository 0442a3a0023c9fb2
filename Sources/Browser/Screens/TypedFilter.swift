import ODataCore

/// `:filter` with typed conditions: `status = P`, `Net Amount > 1000 and Currency = EUR`, `name ~ smi` (contains).
///
/// A field is named by its property name or its label (either case); the value is read as the property's type by
/// the form's rules (``FieldInput``), so `1000` is a decimal for an amount and `2024-05-01` a date; `null` (bare)
/// is no value. Text with no operator is not a condition (the plain `/` search); one with an operator that names
/// no field, or a value of the wrong type, is refused with a sentence that names what it can be.
enum TypedFilter: Equatable {
    case notTyped
    case condition(QueryFilter)
    case refused(String)

    /// Operators as typed, longest first so that `>=` is not read as `>`.
    static let operators: [(String, QueryFilter.Comparison?)] = [
        (">=", .ge), ("<=", .le), ("!=", .ne), ("<>", .ne), ("==", .eq), ("=", .eq), (">", .gt), ("<", .lt),
        ("~", nil),
    ]

    /// Reads `text` against `properties` (those it may name); `offered`: the names listed first when a field is not
    /// found (the service's `UI.SelectionFields`).
    static func parse(_ text: String, properties: [Property], offered: [String] = []) -> TypedFilter {
        let clauses = joiningFlags(split(text), properties: properties)
        var parts: [QueryFilter] = []
        for clause in clauses {
            guard let (left, comparison, right) = operatorSplit(clause) else {
                // With no operator anywhere, it is a search; an operator in another clause makes this one wrong.
                if parts.isEmpty, clauses.count == 1 { return .notTyped }
                return .refused("“\(clause)” is not a condition: write field, an operator (= != > >= < <= ~), value.")
            }
            let name = left.trimmingCharacters(in: .whitespaces)
            guard let property = field(named: name, in: properties) else {
                let names = (offered + properties.map(\.name)).reduce(into: [String]()) {
                    if !$0.contains($1) { $0.append($1) }
                }
                return .refused(
                    "No field “\(name)” here; filter by " + names.prefix(8).joined(separator: ", ")
                        + (names.count > 8 ? ", …" : "") + ".")
            }
            var raw = right.trimmingCharacters(in: .whitespaces)
            if raw.count >= 2, let first = raw.first, first == raw.last, first == "'" || first == "\"" {
                // (a quote inside is written twice, as OData writes it)
                raw = String(raw.dropFirst().dropLast()).replacingOccurrences(of: "\(first)\(first)", with: "\(first)")
            } else if raw.lowercased() == "null" {
                guard let comparison, comparison == .eq || comparison == .ne else {
                    return .refused("Only = and != compare with null.")
                }
                parts.append(.compare(property.name, comparison, .null, type: property.type.primitive))
                continue
            }
            let input = FieldInput(property)
            guard let comparison else {
                guard input.type == .string, input.enumeration == nil else {
                    if input.enumeration != nil {
                        return .refused("\(input.shownName) is one of its members: compare it with = or !=.")
                    }
                    return .refused("~ (contains) is for text; \(input.shownName) is not.")
                }
                parts.append(.contains(property.name, raw))
                continue
            }
            var nonEmpty = input
            nonEmpty.isNullable = false
            nonEmpty.maxLength = nil
            switch nonEmpty.parse(raw) {
            case .success(.string(let member)) where input.enumeration != nil:
                // (an enum's members are equal or not; they have no order a filter could use)
                guard comparison == .eq || comparison == .ne, let enumeration = input.enumeration else {
                    return .refused("\(input.shownName) is compared with = or != only.")
                }
                parts.append(.member(property.name, comparison, member, enumType: enumeration.qualifiedName))
            case .success(let value):
                parts.append(.compare(property.name, comparison, value, type: input.type))
            case .failure(let error):
                return .refused(error.sentence)
            }
        }
        guard !parts.isEmpty else { return .notTyped }
        return .condition(parts.count == 1 ? parts[0] : .all(parts))
    }

    /// The clauses of `text`: split at ` and ` and at commas outside quotes.
    static func split(_ text: String) -> [String] {
        var clauses: [String] = []
        var current = ""
        var quote: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
                current.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                current.append(character)
            } else if character == "," {
                clauses.append(current)
                current = ""
            } else if text[index...].lowercased().hasPrefix(" and ") {
                clauses.append(current)
                current = ""
                index = text.index(index, offsetBy: 5)
                continue
            } else {
                current.append(character)
            }
            index = text.index(after: index)
        }
        clauses.append(current)
        return clauses.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The value being typed at the end of `text` (its last clause, after an operator): the text before it, the field
    /// the clause names and the value so far (an opening quote dropped). Nil when the end of `text` is not a value.
    static func valueBeingTyped(_ text: String) -> (before: String, field: String, typed: String)? {
        var quote: Character?
        var start = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "," {
                start = text.index(after: index)
            } else if text[index...].lowercased().hasPrefix(" and ") {
                index = text.index(index, offsetBy: 5)
                start = index
                continue
            }
            index = text.index(after: index)
        }
        guard let (left, _, right) = operatorSplit(String(text[start...])) else { return nil }
        let field = left.trimmingCharacters(in: .whitespaces)
        let typed = String(right.drop { $0 == " " })
        guard !field.isEmpty else { return nil }
        var before = String(text.dropLast(typed.count))
        if !before.hasSuffix(" ") { before += " " }
        let open = typed.first.map { $0 == "'" || $0 == "\"" } ?? false
        return (before, field, open ? String(typed.dropFirst()) : typed)
    }

    /// `value` as a filter's value is typed: in double quotes (doubled inside) when it would otherwise be read as
    /// something else (a space, a comma, a quote, ` and `, or the word null).
    static func typedValue(_ value: String) -> String {
        let plain =
            !value.isEmpty && value.lowercased() != "null"
            && !value.contains { $0 == " " || $0 == "," || $0 == "'" || $0 == "\"" }
        return plain ? value : "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `clauses` with the members of a flags value put back together: `checks = Brakes, Lights` is one clause (its
    /// commas list members), not `checks = Brakes` and a clause `Lights` with no operator.
    static func joiningFlags(_ clauses: [String], properties: [Property]) -> [String] {
        var joined: [String] = []
        for clause in clauses {
            if operatorSplit(clause) == nil, let last = joined.last, let (left, _, _) = operatorSplit(last),
                field(named: left.trimmingCharacters(in: .whitespaces), in: properties)?.enumeration?.isFlags == true
            {
                joined[joined.count - 1] = last + "," + clause
            } else {
                joined.append(clause)
            }
        }
        return joined
    }

    /// The first operator outside quotes, and what stands either side of it.
    static func operatorSplit(_ clause: String) -> (String, QueryFilter.Comparison?, String)? {
        var quote: Character?
        var index = clause.startIndex
        while index < clause.endIndex {
            let character = clause[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else {
                for (symbol, comparison) in operators where clause[index...].hasPrefix(symbol) {
                    let left = String(clause[..<index])
                    let right = String(clause[clause.index(index, offsetBy: symbol.count)...])
                    guard !left.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
                    return (left, comparison, right)
                }
            }
            index = clause.index(after: index)
        }
        return nil
    }

    /// The property `name` names: its name, else its label, either case; nil for none or for a non-primitive one.
    static func field(named name: String, in properties: [Property]) -> Property? {
        let wanted = name.lowercased()
        let primitive = properties.filter { $0.type.primitive != nil }
        return primitive.first { $0.name == name } ?? primitive.first { $0.name.lowercased() == wanted }
            ?? primitive.first { $0.label?.lowercased() == wanted }
    }
}
