import Foundation

@testable import ODataCore

/// Loads a file from the test bundle's `Fixtures/` folder.
func fixture(_ name: String) throws -> [UInt8] {
    guard let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) else {
        throw FixtureMissing(name: name)
    }
    return Array(try Data(contentsOf: url))
}

struct FixtureMissing: Error { var name: String }

/// Decodes a JSON text with no service model, against the seed's service root.
func decode(_ text: String, model: ServiceModel? = nil, set: String? = nil) throws -> ODataPayload {
    try PayloadDecoder(serviceRoot: "http://example.org/CarDealer.svc/", model: model).decode(
        Array(text.utf8), entitySet: set)
}

extension ODataPayload {
    var entity: ODataEntity? {
        if case .entity(let entity) = self { return entity }
        return nil
    }

    var collection: ODataCollection? {
        if case .collection(let collection) = self { return collection }
        return nil
    }
}

extension NavigationContent {
    var entities: [ODataEntity]? {
        if case .collection(let collection) = self { return collection.entities }
        return nil
    }

    var entity: ODataEntity? {
        if case .entity(let entity) = self { return entity }
        return nil
    }
}
