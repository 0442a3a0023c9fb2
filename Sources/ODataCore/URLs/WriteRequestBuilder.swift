import Foundation

/// The requests that carry writes, as values, beside the URL builder (issue 34): verb and tunnelling, `If-Match`,
/// the repeatability headers, the body, in both dialects. The outbox sends them alone or inside a ``ODataBatch``.
///
/// * An update is v2's `MERGE` of the changed properties (tunnelled as `POST` with `X-HTTP-Method: MERGE` where the
///   service refused the verb), v4's `PATCH`.
/// * Every attempt of one write carries the same `Repeatability-Request-ID` and the `Repeatability-First-Sent` of its
///   first attempt (OData 4.01), so a service that honours them applies it once however often it arrives.
/// * A create leaves out null values (the service's defaults) and binds entities through navigations: v2
///   `"Car":{"__metadata":{"uri":…}}`, v4 `"Car@odata.bind":…` (a URL, or `$1` for one made in the same changeset).
public struct WriteRequestBuilder: Sendable {
    public var urls: ODataURLBuilder
    /// v2 updates go as `POST` with `X-HTTP-Method: MERGE`.
    public var tunnelsMerge: Bool

    public init(urls: ODataURLBuilder, tunnelsMerge: Bool = false) {
        self.urls = urls
        self.tunnelsMerge = tunnelsMerge
    }

    /// What every attempt of one write carries.
    public struct Attempt: Sendable, Hashable {
        public var requestID: String
        /// When the write was first sent.
        public var firstSent: Date
        /// The ETag the write was made against (`If-Match`); nil when the service gave none.
        public var etag: String?

        public init(requestID: String, firstSent: Date, etag: String? = nil) {
            self.requestID = requestID
            self.firstSent = firstSent
            self.etag = etag
        }
    }

    var dialect: ODataDialect { urls.dialect }

    func request(_ method: RequestMethod, _ url: String, _ attempt: Attempt) -> TransportRequest {
        var headers = [
            "Repeatability-Request-ID": attempt.requestID,
            "Repeatability-First-Sent": HTTPDate.format(attempt.firstSent),
        ]
        if let etag = attempt.etag { headers["If-Match"] = etag }
        return TransportRequest(method: method, url: url, headers: headers, dialect: dialect)
    }

    /// The changed properties of `key` (typed by `types` for the wire).
    public func update(
        _ key: EntityKey, changes: [ODataProperty], types: [String: EdmPrimitiveType] = [:], attempt: Attempt
    ) -> TransportRequest {
        let tunnelled = tunnelsMerge && dialect == .v2
        var request = self.request(
            dialect == .v4 ? .patch : tunnelled ? .post : .merge, urls.url(ResourcePath(key)), attempt)
        if tunnelled { request.headers["X-HTTP-Method"] = "MERGE" }
        request.headers["Content-Type"] = "application/json"
        request.body = RequestBodyEncoder.object(changes, types: types, dialect: dialect)
        return request
    }

    /// `key` goes.
    public func delete(_ key: EntityKey, attempt: Attempt) -> TransportRequest {
        request(.delete, urls.url(ResourcePath(key)), attempt)
    }

    /// The link from `parent` through `navigation` to `child` goes; both entities stay (v2 `$links`, v4 `$ref`).
    public func unlink(parent: EntityKey, navigation: String, child: EntityKey, attempt: Attempt) -> TransportRequest {
        request(.delete, urls.linkURL(parent: parent, navigation: navigation, child: child), attempt)
    }

    /// A new entity at `path` (`Set`, or `Parent(k)/Navigation` to link it to its parent) with `properties` (null
    /// ones left out) and `bindings` to existing entities.
    public func create(
        at path: ResourcePath, properties: [ODataProperty], types: [String: EdmPrimitiveType] = [:],
        bindings: [(navigation: String, uri: String)] = [], attempt: Attempt
    ) -> TransportRequest {
        var request = self.request(.post, urls.url(path), attempt)
        request.headers["Content-Type"] = "application/json"
        request.body = RequestBodyEncoder.object(
            properties.filter { $0.value != .null }, types: types, bindings: bindings, dialect: dialect)
        return request
    }
}
