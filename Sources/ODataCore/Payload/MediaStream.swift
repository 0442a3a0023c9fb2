import Foundation

/// A stream an entity holds: a media entity's own content (`HasStream`, read at `…/$value`) or a stream property's
/// (`Edm.Stream`, read at `…/photo`), as the payload describes it.
///
/// What a payload says about a stream is kept with the entity's properties, under the names v4 gives it
/// (``MediaStream/contentTypeName``, `photo@odata.mediaReadLink`): a name holding `@` is no property a schema can
/// declare, so it never meets one (see ``ODataProperty/isInstanceAnnotation``). v2's `__metadata` (`media_src`,
/// `content_type`, `media_etag`) is read into the same names.
public struct MediaStream: Sendable, Hashable {
    /// The stream property's name; nil for a media entity's own stream.
    public var property: String?
    /// What the service says the content is (`image/png`); nil when it did not say.
    public var contentType: String?
    /// Where the service says it is read, as sent (absolute, or relative to the service root); nil: by convention,
    /// the entity's URL followed by `$value` or the property's name.
    public var readLink: String?
    /// The content's own version, when the service gave one.
    public var etag: String?
    /// Its size in bytes, as the service's answer to a `HEAD` of it said (``lengthName``); nil until then.
    public var length: Int64?

    public init(
        property: String? = nil, contentType: String? = nil, readLink: String? = nil, etag: String? = nil,
        length: Int64? = nil
    ) {
        self.property = property
        self.contentType = contentType
        self.readLink = readLink
        self.etag = etag
        self.length = length
    }

    /// Where this client keeps a stream's size once the service said it: a name no payload's annotation is kept
    /// under (``keptName(_:)`` keeps only the three above), so no payload can claim it.
    public static let lengthName = "@cardealer.contentLength"

    /// The name this stream's size is kept under, among its entity's properties.
    public var lengthKey: String { (property ?? "") + Self.lengthName }

    /// `@odata.mediaContentType`: the content type of the stream named before the `@` (the entity's, with nothing).
    public static let contentTypeName = "@odata.mediaContentType"
    /// `@odata.mediaReadLink`.
    public static let readLinkName = "@odata.mediaReadLink"
    /// `@odata.mediaEtag`.
    public static let etagName = "@odata.mediaEtag"

    /// The name a payload's annotation is kept under, for those this client keeps: `@odata.mediaReadLink` and
    /// v4.01's `@mediaReadLink` (after a property's name or none) are kept as `…@odata.mediaReadLink`. Nil for
    /// any other annotation, and for one whose property part is not a plain name.
    public static func keptName(_ annotation: String) -> String? {
        guard let at = annotation.firstIndex(of: "@") else { return nil }
        let property = annotation[..<at]
        var term = annotation[annotation.index(after: at)...]
        if term.hasPrefix("odata.") { term = term.dropFirst("odata.".count) }
        guard ["mediaContentType", "mediaReadLink", "mediaEtag"].contains(term),
            property.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return property + "@odata." + term
    }

    /// The stream of `property` (nil: the entity's own) described in `properties`; nil when they say nothing of it.
    public static func described(in properties: [ODataProperty], property: String? = nil) -> MediaStream? {
        let prefix = property ?? ""
        func text(_ name: String) -> String? {
            guard case .string(let value)? = properties.first(where: { $0.name == prefix + name })?.value else {
                return nil
            }
            return value
        }
        var length: Int64?
        if case .int(let value)? = properties.first(where: { $0.name == prefix + lengthName })?.value { length = value }
        let stream = MediaStream(
            property: property, contentType: text(contentTypeName), readLink: text(readLinkName), etag: text(etagName),
            length: length)
        return stream.contentType == nil && stream.readLink == nil && stream.etag == nil && length == nil
            ? nil : stream
    }

    /// The URL the stream is read from: the read link resolved against `serviceRoot`, or by convention from
    /// `entityURL` (`…/$value`, or `…/photo` for a stream property).
    public func url(entityURL: String, serviceRoot: String) -> String {
        if let readLink, !readLink.isEmpty {
            if let base = URL(string: serviceRoot), let resolved = URL(string: readLink, relativeTo: base) {
                return resolved.absoluteString
            }
            return readLink
        }
        let (path, query) = Self.splitQuery(entityURL)
        return path + "/" + (property.map { PercentEncoding.encodePathSegment($0) } ?? "$value") + query
    }

    static func splitQuery(_ url: String) -> (String, String) {
        guard let mark = url.firstIndex(of: "?") else { return (url, "") }
        return (String(url[..<mark]), String(url[mark...]))
    }
}

extension ODataProperty {
    /// Whether this is what a payload said about the entity or a property (a stream's content type), kept beside
    /// its values, and not a value of its own: its name holds `@`, as no declared or dynamic property's can.
    public var isInstanceAnnotation: Bool { name.contains("@") }
}

extension ODataProperty {
    /// The type a new entity of a type derived from its set's is made of, said first among its values
    /// (`@odata.type`, `#NS.Mechanic`): kept on its write, never among its cached values.
    public static func statedType(_ qualifiedName: String) -> ODataProperty {
        ODataProperty(name: "@odata.type", value: .string("#" + qualifiedName))
    }
}

extension Array where Element == ODataProperty {
    /// The qualified type these values say they are of (``ODataProperty/statedType(_:)``); nil when they say none.
    public var statedType: String? {
        guard case .string(let said)? = first(where: { $0.name == "@odata.type" })?.value else { return nil }
        return said.hasPrefix("#") ? String(said.dropFirst()) : said
    }
}
