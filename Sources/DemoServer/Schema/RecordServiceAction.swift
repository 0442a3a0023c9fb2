import Foundation
import GRDB
import ODataCore

/// An action on one car (issue 36): records a standard service of it, as a template would — "Standard service",
/// 189.00, dated today (UTC), at the mileage given — under the car's latest ownership, and answers the record made.
///
/// Published as a v2 `FunctionImport` (`POST`, `sap:action-for` the car, the car's key and the mileage in the query:
/// `RecordService?carID=1&mileage=52000`) and as a v4 `Action` bound to the car (`POST
/// Car(1)/edmexampleModel.RecordService` with `{"mileage": 52000}`). Both say, in `Common.SideEffects`, that the
/// maintenance of the car's ownerships changes (`_it/PersonCar/PersonCarMaintenance`, v4 through the binding
/// parameter `car/…`), so a client knows to read that again.
///
/// `If-Match` is the car's version (another is a `412`; the action does not change the car itself). A
/// `Repeatability-Request-ID` seen before answers the record the first request made and makes nothing.
struct RecordServiceAction: Sendable {
    static let name = "RecordService"
    static let label = "Record a standard service"
    static let parameter = "mileage"
    static let parameterLabel = "Mileage"
    static let description = "Standard service"
    static let costCents: Int64 = 18_900
    static let maximumMileage: Int64 = 2_000_000
    /// What a request id's stored outcome starts with: the record it made (a create's id is not this action's).
    static let marker = "recorded:"

    /// The car and the mileage when `relative` (below the root, `%28`, `%29` undone) calls the action; nil when it
    /// calls something else. v2's parameters are in `query`, v4's in the JSON `body`.
    static func call(
        _ relative: String, query: String?, body: [UInt8], dialect: ODataDialect, namespace: String
    ) throws -> (car: Int64, mileage: Int64)? {
        func number(_ name: String, _ text: String?) throws -> Int64 {
            let limit = name == parameter ? maximumMileage : Int64(Int32.max)
            guard let text, let value = Int64(text), value >= (name == parameter ? 0 : 1), value <= limit else {
                throw ServiceError.badRequest(
                    "\(Self.name) needs \(name), a whole number from \(name == parameter ? 0 : 1) to \(limit).")
            }
            return value
        }
        switch dialect {
        case .v2:
            guard relative == name else { return nil }
            let custom = try QueryRequest(query: query, dialect: .v2).custom
            for (name, _) in custom where name != "carID" && name != parameter {
                throw ServiceError.badRequest("\(Self.name) takes carID and \(parameter): not \(name).")
            }
            func given(_ name: String) throws -> String? {
                let found = custom.filter { $0.name == name }
                guard found.count <= 1 else { throw ServiceError.badRequest("\(name) is given twice.") }
                return found.first?.value
            }
            return (try number("carID", try given("carID")), try number(parameter, try given(parameter)))
        case .v4:
            guard relative.hasSuffix("/" + namespace + "." + name) else { return nil }
            // (the car alone, addressed by its key: `Car(1)/NS.RecordService`)
            guard let path = ResourcePath.parse(relative: relative), path.segments.count == 2,
                path.segments[0].name == "Car", let key = path.segments[0].key, key.count == 1,
                case .int(let car) = key[0].value
            else {
                throw ServiceError.badRequest("\(name) is invoked on one car: Car(key)/\(namespace).\(name).")
            }
            let object = try EntityWriter.object(of: body)
            for member in object.members where member.key != parameter && !member.key.hasPrefix("@") {
                throw ServiceError.badRequest("\(name) takes one parameter, \(parameter): not \(member.key).")
            }
            guard case .number(let mileage)? = object[parameter] else {
                throw ServiceError.badRequest("\(name) needs \(parameter), a whole number, in its body.")
            }
            return (try number("carID", String(car)), try number(parameter, mileage))
        }
    }

    /// The v2 `FunctionImport` for a car (its key a parameter of its own, as SAP writes one).
    static func version2Declaration(namespace: String) -> String {
        """
        <FunctionImport Name="\(name)" ReturnType="\(namespace).Maintenance" EntitySet="Maintenance" \
        m:HttpMethod="POST" sap:action-for="\(namespace).Car" sap:label="\(label)">\
        <Parameter Name="carID" Type="Edm.Int32" Mode="In" Nullable="false"/>\
        <Parameter Name="\(parameter)" Type="Edm.Int32" Mode="In" Nullable="false" sap:label="\(parameterLabel)"/>\
        </FunctionImport>

        """
    }

    /// The v2 import's side effects, aimed at it in `<Annotations>` (its paths through `_it`, as SAP's v2 services
    /// write them).
    static func version2Annotations(namespace: String, container: String, xmlns: Bool) -> String {
        let namespaceAttribute = xmlns ? " xmlns=\"http://docs.oasis-open.org/odata/ns/edm\"" : ""
        return "<Annotations Target=\"\(namespace).\(container)/\(name)\"\(namespaceAttribute)>"
            + sideEffects(through: "_it") + "</Annotations>\n"
    }

    /// The v4 `Action` bound to a car, its side effects inline.
    static func version4Declaration(namespace: String) -> String {
        """
        <Action Name="\(name)" IsBound="true"><Parameter Name="car" Type="\(namespace).Car" Nullable="false"/>\
        <Parameter Name="\(parameter)" Type="Edm.Int32" Nullable="false">\
        <Annotation Term="Common.Label" String="\(parameterLabel)"/></Parameter>\
        <ReturnType Type="\(namespace).Maintenance" Nullable="false"/>\
        <Annotation Term="Common.Label" String="\(label)"/>\(sideEffects(through: "car"))</Action>

        """
    }

    static func sideEffects(through binding: String) -> String {
        "<Annotation Term=\"Common.SideEffects\"><Record Type=\"Common.SideEffectsType\">"
            + "<PropertyValue Property=\"TargetEntities\"><Collection>"
            + "<NavigationPropertyPath>\(binding)/PersonCar/PersonCarMaintenance</NavigationPropertyPath>"
            + "</Collection></PropertyValue></Record></Annotation>"
    }

    /// Records the service in `db`: the new record's key. `ifMatch` is checked against `car`'s version; `requestID`
    /// seen before gives the record that request made.
    static func run(
        car: Int64, mileage: Int64, ifMatch: String?, requestID: String?, writer: EntityWriter, _ db: Database
    ) throws -> Int64 {
        if let requestID, requestID.isEmpty || requestID.utf8.count > 100 {
            throw ServiceError.badRequest("Repeatability-Request-ID is 1 to 100 characters.")
        }
        try EntityWriter.createRepeatabilityTable(db)
        if let requestID,
            let stored = try String.fetchOne(
                db, sql: "SELECT etag FROM demo_repeatability WHERE requestID = ?", arguments: [requestID])
        {
            guard stored.hasPrefix(marker), let key = Int64(stored.dropFirst(marker.count)) else {
                throw ServiceError.badRequest("Repeatability-Request-ID \(requestID) was used by another request.")
            }
            return key
        }
        guard let cars = writer.schema.entitySet("Car") else { throw ServiceError.notFound("There are no cars.") }
        try writer.checkIfMatch(ifMatch, cars, key: car, db)
        guard
            let ownership = try Int64.fetchOne(
                db, sql: "SELECT max(\"personCarID\") FROM \"PersonCar\" WHERE \"carID\" = ?", arguments: [car])
        else {
            throw ServiceError(
                status: 409, code: "Conflict", message: "Car(\(car)) has no owner to record a service under.")
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let today = now - now % 86_400_000
        let record = (try Int64.fetchOne(db, sql: "SELECT max(\"maintenanceID\") FROM \"Maintenance\"") ?? 0) + 1
        try db.execute(
            sql: """
                INSERT INTO "Maintenance" ("maintenanceID", "description", "serviceDate", "mileage", "cost", "createStamp")
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [record, description, today, mileage, costCents, now])
        let link =
            (try Int64.fetchOne(db, sql: "SELECT max(\"personCarMaintenanceID\") FROM \"PersonCarMaintenance\"") ?? 0)
            + 1
        try db.execute(
            sql: """
                INSERT INTO "PersonCarMaintenance" ("personCarMaintenanceID", "personCarID", "maintenanceID",
                    "createStamp")
                VALUES (?, ?, ?, ?)
                """, arguments: [link, ownership, record, now])
        if let requestID {
            try db.execute(
                sql: "INSERT INTO demo_repeatability (requestID, status, etag, storedAt) VALUES (?, 200, ?, ?)",
                arguments: [requestID, marker + String(record), Date().timeIntervalSince1970])
        }
        return record
    }
}
