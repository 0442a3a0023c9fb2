// libFuzzer entry point: the EDMX ($metadata) parser and navigation resolution; the same bytes read as an
// annotation document merged into the model they describe (UI.LineItem, HeaderInfo, Facets, Common.Text,
// Measures), and as a service document that may name one.
// Built by Fuzz/run.sh together with ODataCore's sources as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEDMXParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    _ = AnnotationLinks.links(in: Array(bytes), root: "http://h/svc/")
    guard let model = try? EDMXParser.parse(bytes) else { return 0 }
    let annotated = (try? EDMXParser.merge(annotations: bytes, into: model)) ?? model
    for set in annotated.entitySets {
        guard let type = annotated.entityType(ofSet: set.name) else { continue }
        _ = annotated.keyTypes(ofEntitySet: set.name)
        for navigation in annotated.navigationProperties(of: type) {
            _ = annotated.resolveNavigation(navigation.name, fromSet: set.name)
        }
        _ = type.ui.overridden(by: model.entityType(ofSet: set.name)?.ui ?? UIAnnotations())
    }
    return 0
}
