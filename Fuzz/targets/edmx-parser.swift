// libFuzzer entry point: the EDMX ($metadata) parser and navigation resolution.
// Built by Fuzz/run.sh together with ODataCore's sources as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEDMXParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let model = try? EDMXParser.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    for set in model.entitySets {
        guard let type = model.entityType(ofSet: set.name) else { continue }
        _ = model.keyTypes(ofEntitySet: set.name)
        for navigation in model.navigationProperties(of: type) {
            _ = model.resolveNavigation(navigation.name, fromSet: set.name)
        }
    }
    return 0
}
