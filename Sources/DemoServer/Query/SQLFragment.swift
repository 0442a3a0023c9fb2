import GRDB

/// A piece of SQL with its `?` arguments in order of appearance.
///
/// Request values only ever travel in ``arguments``; ``sql`` is built from schema names and fixed keywords.
struct SQLFragment: Sendable {
    var sql: String
    var arguments: [DatabaseValue]

    init(_ sql: String, _ arguments: [DatabaseValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    /// Joins fragments with a separator, keeping argument order.
    static func join(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        SQLFragment(parts.map(\.sql).joined(separator: separator), parts.flatMap(\.arguments))
    }

    /// `template` with each `$n` replaced by `parts[n]` (n is one digit), arguments in textual order.
    static func build(_ template: String, _ parts: SQLFragment...) -> SQLFragment {
        var result = SQLFragment("")
        var chars = Substring(template)
        while let dollar = chars.firstIndex(of: "$") {
            result.sql += chars[..<dollar]
            let digitIndex = chars.index(after: dollar)
            let index = chars[digitIndex].wholeNumberValue!
            result.sql += parts[index].sql
            result.arguments += parts[index].arguments
            chars = chars[chars.index(after: digitIndex)...]
        }
        result.sql += chars
        return result
    }

    var statementArguments: StatementArguments { StatementArguments(arguments) }
}
