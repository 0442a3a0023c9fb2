// libFuzzer entry point: answers to a `$batch` (multipart/mixed and JSON), read against a batch of three changesets
// (of one, two and one requests), and the requests of a batch as the built-in service reads them.
// Built by Fuzz/run.sh together with ODataCore's sources as one module.

let fuzzBatch = ODataBatch(changesets: [
    [ODataBatch.Item(request: TransportRequest(method: .merge, url: "http://h/S/Car(1)"), contentID: "1")],
    [
        ODataBatch.Item(request: TransportRequest(method: .post, url: "http://h/S/Car"), contentID: "2"),
        ODataBatch.Item(request: TransportRequest(method: .post, url: "http://h/S/Owner"), contentID: "3"),
    ],
    [ODataBatch.Item(request: TransportRequest(method: .delete, url: "http://h/S/Car(2)"), contentID: "4")],
])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBatchAnswer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let mode = bytes.first else { return 0 }
    let body = Array(bytes.dropFirst())
    let json = mode & 1 == 1
    let response = TransportResponse(
        status: 202,
        headers: ["content-type": json ? "application/json" : "multipart/mixed; boundary=x"], body: body)
    if let answers = try? fuzzBatch.decode(response, format: json ? .json : .multipart, url: "u") {
        guard answers.count == fuzzBatch.changesets.count else { fatalError("\(answers.count) answers for 3") }
        for (answer, changeset) in zip(answers, fuzzBatch.changesets) {
            if case .each(let each) = answer, each.count != changeset.count {
                fatalError("a changeset of \(changeset.count) read with \(each.count) answers")
            }
        }
    }
    // The same bytes as the parts of a batch request, and each part as a request.
    if let parts = try? Multipart.parts(of: body[...], boundary: "x") {
        for part in parts { _ = try? Multipart.request(in: part.body) }
    }
    return 0
}
