import DemoServer
import EntityCache
import Foundation
import ODataCore

/// The CarDealer `$metadata`, exactly as the built-in service serves it.
public enum CarDealerModel {
    public static var edmx: String { ServiceSchema.carDealer.edmx }
    public static var model: ServiceModel { try! EDMXParser.parse(edmx) }

    /// The same model as a service that describes nothing of its screens would give: no `UI` annotations, labels,
    /// texts or units (what the browser falls back on without them).
    public static var plainModel: ServiceModel {
        var model = self.model
        for name in model.entityTypes.keys {
            model.entityTypes[name]?.ui = UIAnnotations()
            model.entityTypes[name]?.titleProperties = []
            for index in model.entityTypes[name]?.properties.indices ?? 0..<0 {
                model.entityTypes[name]?.properties[index].label = nil
                model.entityTypes[name]?.properties[index].unit = nil
                model.entityTypes[name]?.properties[index].textProperty = nil
            }
        }
        return model
    }

    /// The model with one entity set changed as a service's restrictions would (`sap:creatable="false"`…).
    public static func model(changing setName: String, _ change: (inout EntitySet) -> Void) -> ServiceModel {
        var model = self.model
        for container in model.containers.indices {
            for set in model.containers[container].entitySets.indices
            where model.containers[container].entitySets[set].name == setName {
                change(&model.containers[container].entitySets[set])
            }
        }
        return model
    }
}

/// A fresh cache database in a temporary file (observation needs a real writer, as in the app).
public func temporaryCache(_ prefix: String = "cache-test") throws -> CacheDatabase {
    try CacheDatabase(path: NSTemporaryDirectory() + "\(prefix)-\(UUID().uuidString).sqlite")
}
