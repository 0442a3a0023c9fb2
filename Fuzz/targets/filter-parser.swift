// libFuzzer entry point: the demo service's `$filter` lexer and parser (DemoServer/Query).
// Built by Fuzz/run.sh with ODataCore's sources and the filter files as one module.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try FilterParser.parse(text)
    } catch {
        // Every refusal is a 400 the client can read, never anything else.
        if error.status != 400 { fatalError("$filter refused with \(error.status), not 400: \(error)") }
        if error.message.isEmpty { fatalError("$filter refused without a message") }
    }
    return 0
}
