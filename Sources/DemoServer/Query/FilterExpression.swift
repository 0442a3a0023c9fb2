import ODataCore

/// The syntax tree of a `$filter` expression.
public indirect enum FilterExpression: Sendable, Equatable {
    /// A property of the entity being filtered, e.g. `lastName`.
    case property(String)
    /// A typed literal, parsed by ``ODataLiteral``.
    case literal(ODataValue)
    case binary(FilterOperator, FilterExpression, FilterExpression)
    case not(FilterExpression)
    /// A function call such as `substringof('a', lastName)`; the name is lower-cased.
    case call(String, [FilterExpression])
}

/// Binary operators of OData v2 `$filter`, with their precedence (higher binds tighter).
public enum FilterOperator: String, Sendable, Equatable, CaseIterable {
    case or, and
    case eq, ne, gt, ge, lt, le
    case add, sub, mul, div, mod

    var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .eq, .ne, .gt, .ge, .lt, .le: 3
        case .add, .sub: 4
        case .mul, .div, .mod: 5
        }
    }

    /// Whether this is a comparison producing a boolean from two operands.
    var isComparison: Bool { precedence == 3 }

    /// The SQL spelling of a comparison or logical operator.
    var sql: String {
        switch self {
        case .or: "OR"
        case .and: "AND"
        case .eq: "="
        case .ne: "<>"
        case .gt: ">"
        case .ge: ">="
        case .lt: "<"
        case .le: "<="
        case .add: "+"
        case .sub: "-"
        case .mul: "*"
        case .div: "/"
        case .mod: "%"
        }
    }
}
