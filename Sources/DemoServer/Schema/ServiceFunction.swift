import ODataCore

/// A function the service offers (issue 36): unbound, one whole-number parameter, answering with the entities of a
/// set that a `$filter` made from its parameter selects — so its answer pages, filters, sorts and counts like the
/// set's own, and a client keys the list by the call.
///
/// Published as a v2 `FunctionImport` (`GET`, the parameter in the query: `CarsBuiltBefore?year=2010`) and as a v4
/// `Function` with its `FunctionImport` (`CarsBuiltBefore(year=@year)?@year=2010`, or the literal inline).
public struct ServiceFunction: Sendable {
    public var name: String
    public var label: String
    public var parameter: String
    public var parameterLabel: String
    /// The set its answer's entities are in.
    public var entitySet: String
    /// The values the parameter may take.
    public var range: ClosedRange<Int64>
    /// The filter that selects its answer for a value of its parameter.
    public var filter: @Sendable (Int64) -> FilterExpression

    public init(
        name: String, label: String, parameter: String, parameterLabel: String, entitySet: String,
        range: ClosedRange<Int64>, filter: @escaping @Sendable (Int64) -> FilterExpression
    ) {
        self.name = name
        self.label = label
        self.parameter = parameter
        self.parameterLabel = parameterLabel
        self.entitySet = entitySet
        self.range = range
        self.filter = filter
    }

    /// The cars built before the first day of a year: the maintenance department's "which are old enough for the
    /// big service?".
    static let carsBuiltBefore = ServiceFunction(
        name: "CarsBuiltBefore", label: "Cars built before", parameter: "year", parameterLabel: "Year",
        entitySet: "Car", range: 1...9999
    ) { year in
        let digits = String(year)
        let start =
            ODataLiteral.parse(
                "datetime'" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                    + "-01-01T00:00:00'") ?? .null
        return .binary(.lt, .property("manufactureDate"), .literal(start))
    }

    /// `relative` (a path below the root, its `%28`, `%29` and `%27` undone) when it calls this function: the value
    /// of its parameter, from the path (v4) or the query (`custom`); nil when it calls something else.
    func call(
        _ relative: String, custom: [(name: String, value: String)], dialect: ODataDialect
    ) throws(ServiceError) -> Int64? {
        guard relative == name || relative.hasPrefix(name + "(") else { return nil }
        var text: String?
        if relative.hasPrefix(name + "("), relative.hasSuffix(")") {
            guard dialect == .v4 else { throw .badRequest("\(name) takes its \(parameter) in the query in OData v2.") }
            let inside = relative.dropFirst(name.count + 1).dropLast()
            guard inside.split(separator: ",").count == 1 else {
                throw .badRequest("\(name) takes one parameter, \(parameter), once: not '\(inside)'.")
            }
            for pair in inside.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, parts[0] == parameter else {
                    throw .badRequest("\(name) takes one parameter, \(parameter): not '\(pair)'.")
                }
                if parts[1].hasPrefix("@") {
                    let given = custom.filter { $0.name == parts[1] }
                    guard given.count <= 1 else { throw .badRequest("The alias \(parts[1]) is given twice.") }
                    text = given.first?.value
                } else {
                    text = parts[1]
                }
            }
        } else if relative == name {
            let given = custom.filter { $0.name == parameter }
            guard given.count <= 1 else { throw .badRequest("\(name)'s \(parameter) is given twice.") }
            text = given.first?.value
        } else {
            throw .badRequest("The call of \(name) is malformed: '\(relative)'.")
        }
        guard let text, let value = Int64(text), range.contains(value) else {
            throw .badRequest(
                "\(name) needs \(parameter), a whole number from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }
}
