// libFuzzer entry point: key predicates, literals and resource paths (URI → key → URI).
// Built by Fuzz/run.sh together with ODataCore's sources as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let path = ResourcePath.parse(uri: text, serviceRoot: "http://h/S.svc/") else { return 0 }
    // Whatever parses must survive a round trip through a URL unchanged.
    let url = ODataURLBuilder(serviceRoot: "http://h/S.svc/").url(path)
    guard let again = ResourcePath.parse(uri: url, serviceRoot: "http://h/S.svc/") else {
        fatalError("a parsed path did not parse again from its own URL: \(url)")
    }
    if again.canonical != path.canonical, !path.canonical.contains("NaN") {
        fatalError("round trip changed \(path.canonical) into \(again.canonical)")
    }
    return 0
}
