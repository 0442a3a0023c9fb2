/// Parses `$filter` text into a ``FilterExpression`` by precedence climbing.
///
/// Precedence, loosest first: `or`, `and`, `not` (applies to a whole comparison, so
/// `not lastName eq 'x'` means `not (lastName eq 'x')`), comparisons, `add`/`sub`, `mul`/`div`/`mod`.
/// Binary operators associate to the left. Nesting is limited so that hostile input cannot exhaust the stack.
public struct FilterParser {
    private var tokens: [FilterToken]
    private var position = 0
    private var depth = 0

    static let maximumDepth = 64

    /// Parses a whole expression; trailing tokens are an error.
    public static func parse(_ text: String) throws(ServiceError) -> FilterExpression {
        var parser = FilterParser(tokens: try FilterLexer.tokenize(text))
        guard !parser.tokens.isEmpty else { throw .badRequest("$filter is empty.") }
        let expression = try parser.expression(minimumPrecedence: 1)
        if let extra = parser.peek {
            throw parser.error("unexpected \(describe(extra))", at: extra)
        }
        return expression
    }

    private init(tokens: [FilterToken]) {
        self.tokens = tokens
    }

    private var peek: FilterToken? { position < tokens.count ? tokens[position] : nil }

    private mutating func expression(minimumPrecedence: Int) throws(ServiceError) -> FilterExpression {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else { throw .badRequest("$filter is nested too deeply.") }
        var left = try unary()
        while let token = peek, case .identifier(let word) = token.kind,
            let op = FilterOperator(rawValue: word), op.precedence >= minimumPrecedence
        {
            position += 1
            let right = try expression(minimumPrecedence: op.precedence + 1)
            left = .binary(op, left, right)
        }
        return left
    }

    private mutating func unary() throws(ServiceError) -> FilterExpression {
        if let token = peek, token.kind == .identifier("not") {
            position += 1
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw .badRequest("$filter is nested too deeply.") }
            return .not(try expression(minimumPrecedence: FilterOperator.eq.precedence))
        }
        return try primary()
    }

    private mutating func primary() throws(ServiceError) -> FilterExpression {
        guard let token = peek else { throw .badRequest("$filter ends where a value was expected.") }
        position += 1
        switch token.kind {
        case .literal(let value):
            return .literal(value)
        case .openParen:
            let inner = try expression(minimumPrecedence: 1)
            try expect(.closeParen, "')'")
            return inner
        case .identifier(let name):
            if FilterOperator(rawValue: name) != nil || name == "not" {
                throw error("operator '\(name)' where a value was expected", at: token)
            }
            guard peek?.kind == .openParen else { return .property(name) }
            position += 1
            var arguments: [FilterExpression] = []
            if peek?.kind != .closeParen {
                arguments.append(try expression(minimumPrecedence: 1))
                while peek?.kind == .comma {
                    position += 1
                    arguments.append(try expression(minimumPrecedence: 1))
                }
            }
            try expect(.closeParen, "')' after the arguments of \(name)")
            return .call(name.lowercased(), arguments)
        case .closeParen, .comma:
            throw error("unexpected \(Self.describe(token))", at: token)
        }
    }

    private mutating func expect(_ kind: FilterToken.Kind, _ what: String) throws(ServiceError) {
        guard let token = peek else { throw .badRequest("$filter ends where \(what) was expected.") }
        guard token.kind == kind else { throw error("expected \(what), found \(Self.describe(token))", at: token) }
        position += 1
    }

    private func error(_ message: String, at token: FilterToken) -> ServiceError {
        .badRequest("$filter: \(message) at position \(token.offset + 1).")
    }

    private static func describe(_ token: FilterToken) -> String {
        switch token.kind {
        case .identifier(let name): "'\(name)'"
        case .literal: "a literal"
        case .openParen: "'('"
        case .closeParen: "')'"
        case .comma: "','"
        }
    }
}
