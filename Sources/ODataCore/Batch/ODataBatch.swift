import Foundation

/// A `$batch`: requests sent to a service in one exchange, grouped into changesets, each applied all or nothing.
///
/// Two wire formats:
/// * **multipart** (`multipart/mixed`, OData v2 and v4): every changeset is a nested `multipart/mixed` part
///   whose parts are `application/http` requests, each with its `Content-ID`;
/// * **JSON** (OData 4.01): `{"requests":[{"id","atomicityGroup","method","url","headers","body"}]}`, a
///   changeset being the requests that share an `atomicityGroup`.
///
/// Request URLs go relative to the service root, as both formats expect. A later request of a changeset may name an
/// earlier one's result by `$<Content-ID>` (in its URL or in a binding of its body): the service replaces it with
/// the entity the earlier request made, so a create and the link that makes it visible succeed or fail together.
public struct ODataBatch: Sendable, Hashable {
    /// One request inside the batch.
    public struct Item: Sendable, Hashable {
        public var request: TransportRequest
        /// Unique in the batch; what `$<id>` refers to, and how an answer is matched to its request.
        public var contentID: String

        public init(request: TransportRequest, contentID: String) {
            self.request = request
            self.contentID = contentID
        }
    }

    public enum Format: String, Sendable, Hashable {
        case multipart
        case json
    }

    /// In order; each applied all or nothing.
    public var changesets: [[Item]]

    public init(changesets: [[Item]]) {
        self.changesets = changesets
    }

    public var count: Int { changesets.reduce(0) { $0 + $1.count } }

    /// The format a service of `dialect` is sent: JSON for v4 unless it takes only multipart; multipart for v2.
    public static func format(for dialect: ODataDialect, jsonRefused: Bool = false) -> Format {
        dialect == .v4 && !jsonRefused ? .json : .multipart
    }

    /// The one `POST $batch` that carries every changeset. `boundary` makes the multipart delimiters unique (a
    /// random string: no body may hold `--batch_<boundary>`).
    public func request(
        serviceRoot: String, dialect: ODataDialect, format: Format, boundary: String
    )
        -> TransportRequest
    {
        let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        var request = TransportRequest(method: .post, url: root + "$batch", dialect: dialect)
        switch format {
        case .json:
            request.headers["Content-Type"] = "application/json"
            request.headers["Accept"] = "application/json"
            request.body = jsonBody(root: root)
        case .multipart:
            request.headers["Content-Type"] = "multipart/mixed; boundary=batch_" + boundary
            request.headers["Accept"] = "multipart/mixed"
            request.body = multipartBody(root: root, dialect: dialect, boundary: boundary)
        }
        return request
    }

    /// A request's URL as the batch names it: relative to the service root when under it.
    static func relative(_ url: String, root: String) -> String {
        url.hasPrefix(root) ? String(url.dropFirst(root.count)) : url
    }

    /// The headers every inner request carries besides its own: what the transport adds to a request sent alone.
    static func protocolHeaders(_ dialect: ODataDialect) -> [(String, String)] {
        dialect == .v4
            ? [("Accept", "application/json;odata.metadata=minimal"), ("OData-Version", "4.0")]
            : [("Accept", "application/json"), ("DataServiceVersion", "2.0"), ("MaxDataServiceVersion", "2.0")]
    }

    func multipartBody(root: String, dialect: ODataDialect, boundary: String) -> [UInt8] {
        var out: [UInt8] = []
        func line(_ text: String = "") { out += Array(text.utf8) + [13, 10] }
        for (index, changeset) in changesets.enumerated() {
            let inner = "changeset_\(boundary)_\(index)"
            line("--batch_" + boundary)
            line("Content-Type: multipart/mixed; boundary=" + inner)
            line()
            for item in changeset {
                line("--" + inner)
                line("Content-Type: application/http")
                line("Content-Transfer-Encoding: binary")
                line("Content-ID: " + item.contentID)
                line()
                let target = Self.relative(item.request.url, root: root)
                line("\(item.request.method.rawValue) \(target) HTTP/1.1")
                var names = Set<String>()
                for (name, value) in item.request.headers.sorted(by: { $0.key < $1.key }) {
                    names.insert(name.lowercased())
                    line("\(name): \(Self.headerValue(value))")
                }
                for (name, value) in Self.protocolHeaders(dialect) where !names.contains(name.lowercased()) {
                    line("\(name): \(value)")
                }
                let body = item.request.body ?? []
                line("Content-Length: \(body.count)")
                line()
                out += body
                line()
            }
            line("--" + inner + "--")
            line()
        }
        line("--batch_" + boundary + "--")
        return out
    }

    /// A header value on one line: a line break in it would start a header of its own.
    static func headerValue(_ value: String) -> String {
        String(value.unicodeScalars.map { $0 == "\r" || $0 == "\n" ? " " : Character($0) })
    }

    func jsonBody(root: String) -> [UInt8] {
        var out: [UInt8] = Array(#"{"requests":["#.utf8)
        var first = true
        for (index, changeset) in changesets.enumerated() {
            for item in changeset {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                var text = #"{"id":"# + RequestBodyEncoder.string(item.contentID)
                text += #","atomicityGroup":"# + RequestBodyEncoder.string("g\(index)")
                text += #","method":"# + RequestBodyEncoder.string(item.request.method.rawValue)
                text += #","url":"# + RequestBodyEncoder.string(Self.relative(item.request.url, root: root))
                var headers = item.request.headers
                if item.request.body != nil, headers.keys.allSatisfy({ $0.lowercased() != "content-type" }) {
                    headers["Content-Type"] = "application/json"
                }
                text += #","headers":{"#
                text += headers.sorted(by: { $0.key < $1.key })
                    .map { RequestBodyEncoder.string($0.key) + ":" + RequestBodyEncoder.string($0.value) }
                    .joined(separator: ",")
                text += "}"
                out += Array(text.utf8)
                if let body = item.request.body, !body.isEmpty {
                    // The body is JSON already (a write's object): it goes in as a value, not as a string.
                    out += Array(#","body":"#.utf8) + body
                }
                out.append(UInt8(ascii: "}"))
            }
        }
        out += Array("]}".utf8)
        return out
    }
}
