import ODataCore
import ODataHTTP

/// Ownerships in the built-in service's data, found over HTTP (its v2 root), for tests of what happens under a
/// car's latest owner (the demo's action records a service there).
public enum DemoOwnerships {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A car whose latest ownership (the highest `personCarID` of its owners) is among the first links, with that
    /// ownership and its person. `root` is the service's v2 root.
    public static func latest(root: String) async throws -> (car: Int64, ownership: Int64, person: Int64) {
        let url = root + "PersonCar?$expand=Car/PersonCar,Person&$top=40&$format=json"
        let response = try await HTTPClientTransport(timeout: 10).send(TransportRequest(url: url))
        guard case .collection(let links) = try PayloadDecoder(serviceRoot: root).decode(response.body) else {
            throw Failure(description: "the service listed no ownerships")
        }
        for link in links.entities {
            guard case .int(let ownership)? = link["personCarID"],
                case .entity(let car)? = link.navigation("Car"), case .int(let carID)? = car["carID"],
                case .entity(let person)? = link.navigation("Person"), case .int(let personID)? = person["personID"],
                case .collection(let owners)? = car.navigation("PersonCar")
            else { continue }
            let latest = owners.entities.compactMap { owner -> Int64? in
                if case .int(let id)? = owner["personCarID"] { return id }
                return nil
            }.max()
            if latest == ownership { return (carID, ownership, personID) }
        }
        throw Failure(description: "no car whose latest ownership is among the first 40 links")
    }
}
