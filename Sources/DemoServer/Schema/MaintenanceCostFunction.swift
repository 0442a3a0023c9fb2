import Foundation
import GRDB
import ODataCore

/// A function of one car that answers a value (issue 36): what its maintenance cost in a year, over every owner's
/// records of it. Published as a v2 `FunctionImport` for the car (`sap:action-for`, `GET`, the car's key and the
/// year in the query: `MaintenanceCost?carID=1&year=2010`) and as a v4 `Function` bound to the car
/// (`Car(1)/edmexampleModel.MaintenanceCost(year=@year)?@year=2010`, or the literal inline); answered as SAP and
/// OData v4 answer a decimal (`{"d": {"MaintenanceCost": "123.45"}}`, `{"value": 123.45}`).
struct MaintenanceCostFunction: Sendable {
    static let name = "MaintenanceCost"
    static let label = "Maintenance cost"
    static let parameter = "year"
    static let parameterLabel = "Year"

    /// `relative` (below the root, `%28`, `%29`, `%27` and `%40` undone) when it calls the function: the car and the
    /// year; nil when it calls something else.
    static func call(
        _ relative: String, custom: [(name: String, value: String)], dialect: ODataDialect, namespace: String
    ) throws(ServiceError) -> (car: Int64, year: Int64)? {
        func value(_ name: String, _ text: String?) throws(ServiceError) -> Int64 {
            guard let text, let number = Int64(text), number > 0, number <= 9999 || name != parameter else {
                throw .badRequest(
                    "\(Self.name) needs \(name), a whole number\(name == parameter ? " up to 9999" : "").")
            }
            return number
        }
        func given(_ name: String) throws(ServiceError) -> String? {
            let found = custom.filter { $0.name == name }
            guard found.count <= 1 else { throw .badRequest("\(name) is given twice.") }
            return found.first?.value
        }
        switch dialect {
        case .v2:
            guard relative == name else { return nil }
            return (try value("carID", try given("carID")), try value(parameter, try given(parameter)))
        case .v4:
            let qualified = namespace + "." + name
            guard relative.hasPrefix("Car("), let slash = relative.firstIndex(of: "/"),
                relative[relative.index(after: slash)...].hasPrefix(qualified + "(")
            else { return nil }
            let key = relative.dropFirst(4).prefix { $0 != ")" }
            let inside = relative[relative.index(after: slash)...].dropFirst(qualified.count + 1)
            guard inside.hasSuffix(")") else { throw .badRequest("The call of \(name) is malformed.") }
            let parts = inside.dropLast().split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, parts[0] == parameter else {
                throw .badRequest("\(name) takes one parameter, \(parameter).")
            }
            let year = parts[1].hasPrefix("@") ? try given(parts[1]) : parts[1]
            return (try value("carID", String(key)), try value(parameter, year))
        }
    }

    /// The v2 `FunctionImport` for a car (its key a parameter of its own, as SAP writes one).
    static func version2Declaration(namespace: String) -> String {
        """
        <FunctionImport Name="\(name)" ReturnType="Edm.Decimal" m:HttpMethod="GET" \
        sap:action-for="\(namespace).Car" sap:label="\(label)">\
        <Parameter Name="carID" Type="Edm.Int32" Mode="In" Nullable="false"/>\
        <Parameter Name="\(parameter)" Type="Edm.Int32" Mode="In" Nullable="false" sap:label="\(parameterLabel)"/>\
        </FunctionImport>

        """
    }

    /// The v4 `Function` bound to a car.
    static func version4Declaration(namespace: String) -> String {
        """
        <Function Name="\(name)" IsBound="true"><Parameter Name="car" Type="\(namespace).Car" Nullable="false"/>\
        <Parameter Name="\(parameter)" Type="Edm.Int32" Nullable="false">\
        <Annotation Term="Common.Label" String="\(parameterLabel)"/></Parameter>\
        <ReturnType Type="Edm.Decimal" Precision="19" Scale="2"/>\
        <Annotation Term="Common.Label" String="\(label)"/></Function>

        """
    }

    /// The car's maintenance cost in `year`, in cents (0 for none); nil when there is no such car.
    static func cents(car: Int64, year: Int64, _ db: Database) throws -> Int64? {
        guard try Int64.fetchOne(db, sql: "SELECT carID FROM \"Car\" WHERE carID = ?", arguments: [car]) != nil else {
            return nil
        }
        let start = Self.millisecondsSince1970(year: year)
        let end = Self.millisecondsSince1970(year: year + 1)
        return try Int64.fetchOne(
            db,
            sql: """
                SELECT COALESCE(SUM(m."cost"), 0) FROM "Maintenance" m
                JOIN "PersonCarMaintenance" l ON l."maintenanceID" = m."maintenanceID"
                JOIN "PersonCar" o ON o."personCarID" = l."personCarID"
                WHERE o."carID" = ? AND m."serviceDate" >= ? AND m."serviceDate" < ?
                """, arguments: [car, start, end]) ?? 0
    }

    static func millisecondsSince1970(year: Int64) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date =
            calendar.date(from: DateComponents(year: Int(year), month: 1, day: 1)) ?? Date(timeIntervalSince1970: 0)
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The answer's body in `dialect`.
    static func body(cents: Int64, dialect: ODataDialect, root: String) -> [UInt8] {
        let text = PropertyType.decimalText(cents: cents)
        switch dialect {
        case .v2: return Array(#"{"d":{"\#(name)":"\#(text)"}}"#.utf8)
        case .v4: return Array(#"{"@odata.context":"\#(root)$metadata#Edm.Decimal","value":\#(text)}"#.utf8)
        }
    }
}
