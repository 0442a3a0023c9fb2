import ODataCore

/// One token of a `$filter` expression.
struct FilterToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A name: a property, an operator word (`eq`, `and`), or a function.
        case identifier(String)
        case literal(ODataValue)
        case openParen, closeParen, comma
    }

    var kind: Kind
    /// Character offset in the expression, for error messages.
    var offset: Int
}

/// Splits a `$filter` expression into tokens.
///
/// Quoted strings honour doubled quotes (`'O''Neil'`); typed literals (`datetime'…'`, `guid'…'`,
/// `X'…'`) and numbers with suffixes (`10L`, `2.5M`, `1e3d`) are parsed by ``ODataLiteral``.
enum FilterLexer {
    static func tokenize(_ text: String) throws(ServiceError) -> [FilterToken] {
        let chars = Array(text)
        var tokens: [FilterToken] = []
        var index = 0
        while index < chars.count {
            let start = index
            let character = chars[index]
            switch character {
            case " ", "\t", "\n", "\r":
                index += 1
            case "(":
                tokens.append(FilterToken(kind: .openParen, offset: start))
                index += 1
            case ")":
                tokens.append(FilterToken(kind: .closeParen, offset: start))
                index += 1
            case ",":
                tokens.append(FilterToken(kind: .comma, offset: start))
                index += 1
            case "'":
                index = try endOfQuoted(chars, from: index)
                tokens.append(try literal(chars[start..<index], at: start))
            case "-", "0"..."9", ".":
                index += 1
                while index < chars.count, isNumberCharacter(chars[index], previous: chars[index - 1]) { index += 1 }
                tokens.append(try literal(chars[start..<index], at: start))
            default:
                guard character.isLetter || character == "_" || character == "$" else {
                    throw .badRequest("$filter: unexpected character '\(character)' at position \(start + 1).")
                }
                while index < chars.count,
                    chars[index].isLetter || chars[index].isNumber || "_/.$".contains(chars[index])
                {
                    index += 1
                }
                if index < chars.count, chars[index] == "'" {
                    index = try endOfQuoted(chars, from: index)
                    tokens.append(try literal(chars[start..<index], at: start))
                } else {
                    let word = String(chars[start..<index])
                    switch word {
                    case "true": tokens.append(FilterToken(kind: .literal(.bool(true)), offset: start))
                    case "false": tokens.append(FilterToken(kind: .literal(.bool(false)), offset: start))
                    case "null": tokens.append(FilterToken(kind: .literal(.null), offset: start))
                    default: tokens.append(FilterToken(kind: .identifier(word), offset: start))
                    }
                }
            }
        }
        return tokens
    }

    /// The index just past the closing quote of the literal starting at `start` (a `'`).
    static func endOfQuoted(_ chars: [Character], from start: Int) throws(ServiceError) -> Int {
        var index = start + 1
        while index < chars.count {
            if chars[index] == "'" {
                if index + 1 < chars.count, chars[index + 1] == "'" {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        throw .badRequest("$filter: the string starting at position \(start + 1) has no closing quote.")
    }

    static func isNumberCharacter(_ character: Character, previous: Character) -> Bool {
        if character.isASCII, character.isNumber || character == "." { return true }
        if "eE".contains(character) { return true }
        if "+-".contains(character) { return "eE".contains(previous) }
        return "LlMmDdFf".contains(character)
    }

    static func literal(_ text: ArraySlice<Character>, at offset: Int) throws(ServiceError) -> FilterToken {
        let string = String(text)
        guard let value = ODataLiteral.parse(string) else {
            throw .badRequest("$filter: '\(string)' at position \(offset + 1) is not a valid literal.")
        }
        return FilterToken(kind: .literal(value), offset: offset)
    }
}
