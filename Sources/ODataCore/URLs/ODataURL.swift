/// Builds request URLs from a service root, a resource path and query options.
public struct ODataURLBuilder: Sendable {
    /// The service root, normalised to end with `/` (a root without it may redirect).
    public let serviceRoot: String
    /// Key property types per entity set, so literals get their suffixes (`10248L`).
    public let keyTypes: @Sendable (String) -> [String: EdmPrimitiveType]

    public init(
        serviceRoot: String, keyTypes: @escaping @Sendable (String) -> [String: EdmPrimitiveType] = { _ in [:] }
    ) {
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        self.keyTypes = keyTypes
    }

    /// A builder whose key literals are typed by a service model.
    public init(serviceRoot: String, model: ServiceModel) {
        self.init(serviceRoot: serviceRoot) { set in model.keyTypes(ofEntitySet: set) }
    }

    /// `root + path + ?options` as text.
    public func url(_ path: ResourcePath, _ options: QueryOptions = QueryOptions()) -> String {
        let query = options.queryText
        return serviceRoot + path.urlText(keyTypes: keyTypes) + (query.isEmpty ? "" : "?" + query)
    }

    /// The `$metadata` document's URL.
    public var metadataURL: String { serviceRoot + "$metadata" }

    /// The `$count` of a collection path.
    public func countURL(_ path: ResourcePath, filter: String? = nil) -> String {
        url(path.appending("$count"), QueryOptions(filter: filter))
    }
}
