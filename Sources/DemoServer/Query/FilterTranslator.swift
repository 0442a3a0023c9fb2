import GRDB
import ODataCore

/// Turns a ``FilterExpression`` into a parameterised SQL condition over one entity set's table.
///
/// Operands are type-checked (strings with strings, numbers with numbers, dates with dates); literals
/// become bound arguments, so no `$filter` can change the statement's structure.
struct FilterTranslator {
    let set: EntitySetSchema

    /// The kind of value an SQL expression yields.
    enum ValueType: Equatable {
        case boolean, string, number, dateTime, null
    }

    /// A translated operand.
    struct Typed {
        var fragment: SQLFragment
        var type: ValueType
    }

    /// The SQL condition for a boolean filter expression.
    func condition(_ expression: FilterExpression) throws(ServiceError) -> SQLFragment {
        let result = try translate(expression)
        guard result.type == .boolean else { throw .badRequest("$filter must be a condition (true or false).") }
        return result.fragment
    }

    func translate(_ expression: FilterExpression) throws(ServiceError) -> Typed {
        switch expression {
        case .property(let name):
            guard let property = set.property(name) else {
                if name.contains("/") {
                    throw .notImplemented("$filter on navigation paths ('\(name)') is not supported.")
                }
                throw .badRequest("$filter: \(set.name) has no property '\(name)'.")
            }
            switch property.type {
            case .int32: return Typed(fragment: SQLFragment(quoted(name)), type: .number)
            case .string: return Typed(fragment: SQLFragment(quoted(name)), type: .string)
            case .dateTime: return Typed(fragment: SQLFragment(quoted(name)), type: .dateTime)
            case .decimalCents: return Typed(fragment: SQLFragment("(\(quoted(name)) / 100.0)"), type: .number)
            }
        case .literal(let value):
            return try literal(value)
        case .not(let inner):
            let operand = try translate(inner)
            guard operand.type == .boolean else { throw .badRequest("$filter: 'not' needs a condition.") }
            return Typed(fragment: .build("(NOT $0)", operand.fragment), type: .boolean)
        case .binary(let op, let lhs, let rhs):
            return try binary(op, try translate(lhs), try translate(rhs))
        case .call(let name, let arguments):
            let translated = try call(
                name, try arguments.map { (argument) throws(ServiceError) in try translate(argument) })
            // A substring of a searchable column is looked up in its index instead of tested row by row.
            guard let lookup = searchLookup(name, arguments) else { return translated }
            return Typed(fragment: lookup, type: .boolean)
        }
    }

    /// `substringof('abc', tolower(column))` or `contains(tolower(column), 'abc')` on a searchable column, with
    /// three characters or more (what a trigram index can answer): the keys its FTS5 index gives for that text.
    /// The index holds `odata_tolower` of the column, as `tolower` compares, and a trigram phrase of the text is
    /// exactly a substring of it: the keys are the rows the test would accept (tested against the scan on hostile
    /// and non-Latin names). Nil for anything else.
    func searchLookup(_ name: String, _ arguments: [FilterExpression]) -> SQLFragment? {
        guard arguments.count == 2 else { return nil }
        let (text, subject): (FilterExpression, FilterExpression)
        switch name {
        case "substringof": (text, subject) = (arguments[0], arguments[1])
        case "contains": (text, subject) = (arguments[1], arguments[0])
        default: return nil
        }
        guard case .literal(.string(let value)) = text, value.unicodeScalars.count >= 3,
            case .call("tolower", let inner) = subject, inner.count == 1, case .property(let column) = inner[0],
            set.searchable.contains(column)
        else { return nil }
        let phrase = "{\(column)} : \"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let table = quoted(set.searchTable)
        return SQLFragment(
            "(\(quoted(set.key)) IN (SELECT rowid FROM \(table) WHERE \(table) MATCH ?))", [phrase.databaseValue])
    }

    func literal(_ value: ODataValue) throws(ServiceError) -> Typed {
        switch value {
        case .null: return Typed(fragment: SQLFragment("NULL"), type: .null)
        case .bool(let flag): return Typed(fragment: SQLFragment("?", [(flag ? 1 : 0).databaseValue]), type: .boolean)
        case .int(let number): return Typed(fragment: SQLFragment("?", [number.databaseValue]), type: .number)
        case .double(let number): return Typed(fragment: SQLFragment("?", [number.databaseValue]), type: .number)
        case .decimal(let text):
            guard let number = Double(text) else { throw .badRequest("$filter: '\(text)M' is out of range.") }
            return Typed(fragment: SQLFragment("?", [number.databaseValue]), type: .number)
        case .string(let text): return Typed(fragment: SQLFragment("?", [text.databaseValue]), type: .string)
        case .dateTime(let instant), .dateTimeOffset(let instant):
            return Typed(fragment: SQLFragment("?", [instant.millisecondsSince1970.databaseValue]), type: .dateTime)
        case .guid, .time, .binary, .complex, .collection:
            throw .badRequest("$filter: no property of \(set.name) can be compared with that literal's type.")
        }
    }

    func binary(_ op: FilterOperator, _ lhs: Typed, _ rhs: Typed) throws(ServiceError) -> Typed {
        switch op {
        case .and, .or:
            guard lhs.type == .boolean, rhs.type == .boolean else {
                throw .badRequest("$filter: '\(op.rawValue)' needs conditions on both sides.")
            }
            return Typed(fragment: .build("($0 \(op.sql) $1)", lhs.fragment, rhs.fragment), type: .boolean)
        case .eq, .ne, .gt, .ge, .lt, .le:
            if lhs.type == .null || rhs.type == .null {
                guard op == .eq || op == .ne else {
                    throw .badRequest("$filter: null can only be compared with eq or ne.")
                }
                let operand = lhs.type == .null ? rhs : lhs
                return Typed(
                    fragment: .build(op == .eq ? "($0 IS NULL)" : "($0 IS NOT NULL)", operand.fragment), type: .boolean)
            }
            guard lhs.type == rhs.type else {
                throw .badRequest("$filter: cannot compare \(lhs.type) with \(rhs.type) using '\(op.rawValue)'.")
            }
            return Typed(fragment: .build("($0 \(op.sql) $1)", lhs.fragment, rhs.fragment), type: .boolean)
        case .add, .sub, .mul, .div, .mod:
            throw .notImplemented("$filter: arithmetic ('\(op.rawValue)') is not supported by this service.")
        }
    }

    func call(_ name: String, _ args: [Typed]) throws(ServiceError) -> Typed {
        func expect(_ types: [ValueType]) throws(ServiceError) {
            guard args.map(\.type) == types else {
                let wanted = types.map { "\($0)" }.joined(separator: ", ")
                throw .badRequest("$filter: \(name) takes (\(wanted)).")
            }
        }
        let f = args.map(\.fragment)
        switch name {
        case "substringof":
            try expect([.string, .string])
            return Typed(fragment: .build("(instr($1, $0) > 0)", f[0], f[1]), type: .boolean)
        case "contains":
            // v4's substringof, with the arguments the other way round.
            try expect([.string, .string])
            return Typed(fragment: .build("(instr($0, $1) > 0)", f[0], f[1]), type: .boolean)
        case "startswith":
            try expect([.string, .string])
            return Typed(fragment: .build("(substr($0, 1, length($1)) = $1)", f[0], f[1]), type: .boolean)
        case "endswith":
            try expect([.string, .string])
            return Typed(
                fragment: .build("(length($1) = 0 OR substr($0, -length($1)) = $1)", f[0], f[1]), type: .boolean)
        case "tolower", "toupper", "trim":
            try expect([.string])
            // Unicode case mapping, registered on every connection by `DataStore`.
            let function = ["tolower": "odata_tolower", "toupper": "odata_toupper", "trim": "trim"][name]!
            return Typed(fragment: .build("\(function)($0)", f[0]), type: .string)
        case "length":
            try expect([.string])
            return Typed(fragment: .build("length($0)", f[0]), type: .number)
        case "indexof":
            try expect([.string, .string])
            return Typed(fragment: .build("(instr($0, $1) - 1)", f[0], f[1]), type: .number)
        case "year", "month", "day", "hour", "minute", "second":
            try expect([.dateTime])
            let format = ["year": "%Y", "month": "%m", "day": "%d", "hour": "%H", "minute": "%M", "second": "%S"][name]!
            return Typed(
                fragment: .build("CAST(strftime('\(format)', $0 / 1000, 'unixepoch') AS INTEGER)", f[0]), type: .number
            )
        case "concat", "substring", "replace", "round", "floor", "ceiling", "isof", "cast":
            throw .notImplemented("$filter: the function \(name) is not supported by this service.")
        default:
            throw .badRequest("$filter: unknown function '\(name)'.")
        }
    }
}
