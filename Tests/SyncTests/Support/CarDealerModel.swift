import DemoServer
import ODataCore

/// The CarDealer `$metadata`, exactly as the built-in service serves it.
enum CarDealerModel {
    static var edmx: String { ServiceSchema.carDealer.edmx }
    static var model: ServiceModel { try! EDMXParser.parse(edmx) }
}
