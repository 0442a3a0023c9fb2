import ODataCore

/// A `$filter` decided in memory, for a set small enough to read whole (``WorkOrderSet``): comparisons, `and`, `or`,
/// `not`, and the string functions a client filters a list with (`contains`, `startswith`, `endswith`,
/// `substringof`, `tolower`, `toupper`, `length`). Anything else is a `501` naming it; a property the set lacks, or
/// operands that cannot be compared, a `400`.
struct RowFilter {
    /// The set's name, for sentences.
    let setName: String
    /// A property's value on the row being decided; nil when the set has no such property.
    let value: (String) -> ODataValue?

    /// Whether the row passes `expression`.
    func passes(_ expression: FilterExpression) throws(ServiceError) -> Bool {
        switch try evaluate(expression) {
        case .bool(let flag): return flag
        case .null: return false
        default: throw .badRequest("$filter must be a condition (true or false).")
        }
    }

    private func evaluate(_ expression: FilterExpression) throws(ServiceError) -> ODataValue {
        switch expression {
        case .property(let name):
            guard let found = value(name) else { throw .badRequest("$filter: \(setName) has no property '\(name)'.") }
            return found
        case .literal(let literal):
            return literal
        case .not(let inner):
            switch try evaluate(inner) {
            case .bool(let flag): return .bool(!flag)
            case .null: return .null
            default: throw .badRequest("$filter: 'not' needs a condition.")
            }
        case .binary(let op, let lhs, let rhs):
            return try binary(op, try evaluate(lhs), try evaluate(rhs))
        case .call(let name, let arguments):
            var values: [ODataValue] = []
            for argument in arguments { values.append(try evaluate(argument)) }
            return try call(name, values)
        }
    }

    private func binary(_ op: FilterOperator, _ lhs: ODataValue, _ rhs: ODataValue) throws(ServiceError) -> ODataValue {
        switch op {
        case .and, .or:
            func flag(_ value: ODataValue) throws(ServiceError) -> Bool {
                switch value {
                case .bool(let flag): return flag
                case .null: return false
                default: throw .badRequest("$filter: '\(op.rawValue)' joins conditions.")
                }
            }
            let (left, right) = (try flag(lhs), try flag(rhs))
            return .bool(op == .and ? left && right : left || right)
        case .eq, .ne, .lt, .le, .gt, .ge:
            if lhs.isNull || rhs.isNull {
                // null equals null only; it is neither less nor more than anything
                let same = lhs.isNull && rhs.isNull
                return .bool(op == .eq ? same : op == .ne ? !same : false)
            }
            guard let order = Self.compare(lhs, rhs) else {
                throw .badRequest("$filter: \(Self.kind(lhs)) and \(Self.kind(rhs)) cannot be compared.")
            }
            switch op {
            case .eq: return .bool(order == 0)
            case .ne: return .bool(order != 0)
            case .lt: return .bool(order < 0)
            case .le: return .bool(order <= 0)
            case .gt: return .bool(order > 0)
            default: return .bool(order >= 0)
            }
        case .add, .sub, .mul, .div, .mod:
            throw .notImplemented("$filter on \(setName): arithmetic ('\(op.rawValue)') is not supported.")
        }
    }

    private func call(_ name: String, _ arguments: [ODataValue]) throws(ServiceError) -> ODataValue {
        func texts(_ count: Int) throws(ServiceError) -> [String]? {
            guard arguments.count == count else {
                throw .badRequest("$filter: \(name) takes \(count) argument\(count == 1 ? "" : "s").")
            }
            var result: [String] = []
            for argument in arguments {
                switch argument {
                case .string(let text): result.append(text)
                case .null: return nil
                default: throw .badRequest("$filter: \(name) takes text, not \(Self.kind(argument)).")
                }
            }
            return result
        }
        switch name {
        case "contains", "startswith", "endswith", "substringof":
            guard let pair = try texts(2) else { return .null }
            let (text, part) = name == "substringof" ? (pair[1], pair[0]) : (pair[0], pair[1])
            switch name {
            case "startswith": return .bool(text.hasPrefix(part))
            case "endswith": return .bool(text.hasSuffix(part))
            default: return .bool(part.isEmpty || text.contains(part))
            }
        case "tolower", "toupper":
            guard let text = try texts(1)?[0] else { return .null }
            return .string(name == "tolower" ? text.lowercased() : text.uppercased())
        case "length":
            guard let text = try texts(1)?[0] else { return .null }
            return .int(Int64(text.count))
        default:
            throw .notImplemented("$filter on \(setName): the function \(name) is not supported.")
        }
    }

    /// -1, 0 or 1; nil when the two are not of kinds that compare.
    static func compare(_ lhs: ODataValue, _ rhs: ODataValue) -> Int? {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : a == b ? 0 : 1 }
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return sign(a, b)
        case (.bool(let a), .bool(let b)): return sign(a ? 1 : 0, b ? 1 : 0)
        case (.int(let a), .int(let b)): return sign(a, b)
        default: break
        }
        if let a = number(lhs), let b = number(rhs) { return sign(a, b) }
        if let a = instant(lhs), let b = instant(rhs) { return sign(a, b) }
        return nil
    }

    private static func number(_ value: ODataValue) -> Double? {
        switch value {
        case .int(let number): Double(number)
        case .double(let number): number
        case .decimal(let text): Double(text)
        default: nil
        }
    }

    private static func instant(_ value: ODataValue) -> Int64? {
        switch value {
        case .dateTime(let instant), .dateTimeOffset(let instant): instant.millisecondsSince1970
        default: nil
        }
    }

    static func kind(_ value: ODataValue) -> String {
        switch value {
        case .string: "text"
        case .bool: "a boolean"
        case .int, .double, .decimal: "a number"
        case .dateTime, .dateTimeOffset: "a date"
        case .null: "null"
        default: "a value of another kind"
        }
    }
}
