import DemoServer
import EntityCache
import Foundation
import ODataCore

/// The CarDealer `$metadata`, exactly as the built-in service serves it.
public enum CarDealerModel {
    public static var edmx: String { ServiceSchema.carDealer.edmx }
    public static var model: ServiceModel { try! EDMXParser.parse(edmx) }
}

/// A fresh cache database in a temporary file (observation needs a real writer, as in the app).
public func temporaryCache(_ prefix: String = "cache-test") throws -> CacheDatabase {
    try CacheDatabase(path: NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString).sqlite")
}
