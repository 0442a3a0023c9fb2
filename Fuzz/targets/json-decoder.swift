// libFuzzer entry point: the verbose-JSON decoder, with and without a service model.
// Built by Fuzz/run.sh together with ODataCore's sources as one module.

let fuzzModel: ServiceModel? = try? EDMXParser.parse(fuzzMetadata)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let plain = PayloadDecoder(serviceRoot: "http://h/CarDealer.svc/")
    _ = try? plain.decode(bytes, entitySet: "Person")
    let typed = PayloadDecoder(serviceRoot: "http://h/CarDealer.svc/", model: fuzzModel)
    _ = try? typed.decode(bytes, entitySet: "Person")
    _ = ODataError.fromResponse(status: 500, url: nil, contentType: nil, body: Array(bytes))
    return 0
}
