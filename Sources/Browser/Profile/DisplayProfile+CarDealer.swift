import Foundation

extension DisplayProfile {
    /// The CarDealer profile's JSON, compiled in from `cardealer.profile.json` beside this file (the one
    /// source of truth), so the binary needs no resource files.
    public static var carDealerJSON: String { String(decoding: PackageResources.cardealer_profile_json, as: UTF8.self) }

    /// The CarDealer profile (nil only if ``carDealerJSON`` were broken, which a test rules out).
    public static var carDealer: DisplayProfile? { try? load(from: Data(carDealerJSON.utf8)) }
}
