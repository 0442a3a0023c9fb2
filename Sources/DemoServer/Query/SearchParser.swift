/// v4 `$search` (and SAP's v2 `search`) as a `$filter` condition on a set's searchable columns.
///
/// The grammar is OData 4.01's: words and `"phrases"` (with `\"` and `\\`), `NOT`, `AND` (or nothing between two
/// terms), `OR`, parentheses; `NOT` binds tightest, `OR` loosest. A term matches a row when any searchable column
/// contains it, ignoring case: `contains(tolower(column), 'term')`, which ``FilterTranslator`` answers from the set's
/// trigram index from three characters on.
struct SearchParser {
    enum Token: Equatable {
        case term(String)
        case and, or, not, open, close
    }

    let columns: [String]
    private var tokens: [Token] = []
    private var index = 0
    /// How deep parentheses and `NOT`s go now: a hostile search cannot run the parser out of stack.
    private var depth = 0

    /// The condition `text` asks for on `columns`; a 400 sentence for text that is not a search expression.
    static func condition(_ text: String, columns: [String]) throws(ServiceError) -> FilterExpression {
        var parser = SearchParser(columns: columns)
        parser.tokens = try tokenize(text)
        guard !parser.tokens.isEmpty else { throw .badRequest("$search is empty.") }
        // (each term is a condition of its own, joined in a tree as deep as the terms are many, which SQLite's parser
        // must take: it gives up at about ninety nested ANDs)
        guard parser.tokens.count <= maximumTokens else {
            throw .badRequest("$search has more than \(maximumTokens) words and operators.")
        }
        let expression = try parser.or()
        guard parser.index == parser.tokens.count else {
            throw .badRequest("$search '\(text)' has a ')' it never opened.")
        }
        return expression
    }

    private init(columns: [String]) { self.columns = columns }

    /// Words and operators a search may have, and how deep its parentheses and `NOT`s may go: well within what the
    /// SQL the condition becomes can nest (SQLite's parser stops at about ninety levels).
    static let maximumTokens = 64
    static let maximumDepth = 16

    /// SAP's v2 `search`: the text is the user's, not an expression: it is looked for as one phrase.
    static func phrase(_ text: String, columns: [String]) throws(ServiceError) -> FilterExpression {
        guard !text.isEmpty else { throw .badRequest("search is empty.") }
        return SearchParser(columns: columns).term(text)
    }

    /// Whether any of the columns contains `text`, ignoring case.
    private func term(_ text: String) -> FilterExpression {
        let needle = FilterExpression.literal(.string(text.lowercased()))
        let tests = columns.map { column in
            FilterExpression.call("contains", [.call("tolower", [.property(column)]), needle])
        }
        return tests.dropFirst().reduce(tests[0]) { .binary(.or, $0, $1) }
    }

    static func tokenize(_ text: String) throws(ServiceError) -> [Token] {
        var tokens: [Token] = []
        var characters = Substring(text)
        while let first = characters.first {
            if first.isWhitespace {
                characters = characters.dropFirst()
            } else if first == "(" || first == ")" {
                tokens.append(first == "(" ? .open : .close)
                characters = characters.dropFirst()
            } else if first == "\"" {
                var phrase = ""
                characters = characters.dropFirst()
                var closed = false
                while let next = characters.first {
                    characters = characters.dropFirst()
                    if next == "\"" {
                        closed = true
                        break
                    }
                    if next == "\\" {
                        guard let escaped = characters.first, escaped == "\"" || escaped == "\\" else {
                            throw .badRequest("$search: a '\\' in a phrase escapes only '\"' or '\\'.")
                        }
                        phrase.append(escaped)
                        characters = characters.dropFirst()
                    } else {
                        phrase.append(next)
                    }
                }
                guard closed else { throw .badRequest("$search: a phrase is not closed with '\"'.") }
                guard !phrase.isEmpty else { throw .badRequest("$search: a phrase is empty.") }
                tokens.append(.term(phrase))
            } else {
                let word = characters.prefix { !$0.isWhitespace && !"()\"".contains($0) }
                characters = characters.dropFirst(word.count)
                switch word {
                case "AND": tokens.append(.and)
                case "OR": tokens.append(.or)
                case "NOT": tokens.append(.not)
                default: tokens.append(.term(String(word)))
                }
            }
        }
        return tokens
    }

    private mutating func or() throws(ServiceError) -> FilterExpression {
        var left = try and()
        while index < tokens.count, tokens[index] == .or {
            index += 1
            left = .binary(.or, left, try and())
        }
        return left
    }

    private mutating func and() throws(ServiceError) -> FilterExpression {
        var left = try unary()
        while index < tokens.count, tokens[index] != .or, tokens[index] != .close {
            if tokens[index] == .and { index += 1 }
            left = .binary(.and, left, try unary())
        }
        return left
    }

    private mutating func unary() throws(ServiceError) -> FilterExpression {
        guard index < tokens.count else { throw .badRequest("$search ends where a term was expected.") }
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw .badRequest("$search is nested too deeply.") }
        let token = tokens[index]
        index += 1
        switch token {
        case .not: return .not(try unary())
        case .open:
            let inner = try or()
            guard index < tokens.count, tokens[index] == .close else {
                throw .badRequest("$search leaves a parenthesis open.")
            }
            index += 1
            return inner
        case .term(let text):
            return term(text)
        case .and, .or, .close:
            throw .badRequest("$search has an operator or ')' where a term was expected.")
        }
    }
}
