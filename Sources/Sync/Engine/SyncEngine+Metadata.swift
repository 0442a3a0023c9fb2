import EntityCache
import Foundation
import ODataCore

extension SyncEngine {
    /// Fetches and installs the service's `$metadata`, storing the document in the cache;
    /// when the service cannot be reached, installs the stored document instead (offline start).
    /// Throws when neither is available or the document cannot be read.
    @discardableResult
    public func loadMetadata() async throws -> ServiceModel {
        let url = builder.metadataURL
        let started = clock.now()
        var fetched: [UInt8]?
        var failure: ODataError?
        do {
            let response = try await transport.send(TransportRequest(url: url, acceptsXML: true))
            if (200..<300).contains(response.status) {
                fetched = response.body
            } else {
                failure = ODataError.fromResponse(
                    status: response.status, url: url, contentType: response.headers["content-type"],
                    body: response.body
                )
            }
            log(url: url, status: response.status, bytes: response.body.count, started: started, error: failure)
        } catch let error as ODataError {
            failure = error
            log(url: url, status: nil, bytes: 0, started: started, error: error)
        }
        guard let document = try fetched ?? cache.metadataDocument() else {
            throw failure ?? ODataError(kind: .metadata, message: "no $metadata is available", url: url)
        }
        let model: ServiceModel
        do {
            model = try EDMXParser.parse(document)
        } catch {
            throw ODataError(kind: .metadata, message: String(describing: error), url: url)
        }
        if let fetched {
            let date = clock.now()
            try await cache.write { try $0.storeMetadataDocument(fetched, at: date) }
        }
        use(model)
        return model
    }

    func log(url: String, status: Int?, bytes: Int, started: Date, error: ODataError?) {
        let entry = RequestLogEntry(
            url: url, status: status, bytes: bytes, duration: clock.now().timeIntervalSince(started),
            outcome: error == nil ? .fetched : .failed, startedAt: started, attempts: 1, error: error?.description
        )
        _ = try? cache.write { try $0.appendRequestLog(entry) }
    }
}
