import EntityCache
import Foundation
import ODataCore

/// Loads a service's `$metadata` at start, and says in words what to do when that fails.
///
/// * A 404 or 400, an HTML page or JSON where EDMX was expected: the sentence asks whether the URL is the
///   service root, and says what one looks like.
/// * A URL that names an entity set (`…/CarDealer.svc/Person`) is taken for what it means: when its parent
///   is a service root with that set, the session opens the set under that root.
public enum MetadataLoader {
    public struct Loaded: Sendable {
        /// The service root, with one trailing slash.
        public var root: String
        public var model: ServiceModel
        /// The document as sent, for the cache.
        public var document: [UInt8]
        /// The entity set the given URL named, when it named one under `root`.
        public var entitySet: String?
        /// What the given URL named under `root`, from that set on (`Car(3)`, `Car/3`, `Person(1)/Trips`), as written.
        public var path: String?
        /// The annotation documents the service advertises, as sent (merged into `model`), for the cache.
        public var annotations: [AnnotationDocument] = []
        /// Sentences for the log: annotation documents that could not be had or read.
        public var notes: [String] = []
        /// Whether `annotations` is all the service advertises (its service document and every document it names
        /// were had): only then do they replace what a cache holds.
        public var annotationsComplete = true
        /// The SAP catalog answered that it has no annotation document for the service (to remember).
        public var catalogHasNoAnnotations = false

        /// This with what the service advertises merged into its model.
        func merging(_ advertised: Advertised) -> Loaded {
            var notes = notes + advertised.notes
            var merged = self
            merged.model = MetadataLoader.merged(model, with: advertised.documents, notes: &notes)
            merged.annotations = annotations + advertised.documents
            merged.notes = notes
            merged.annotationsComplete = advertised.complete
            merged.catalogHasNoAnnotations = advertised.catalogHasNone
            return merged
        }
    }

    /// Why `$metadata` could not be loaded, in a sentence that says what to check.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var sentence: String
        /// The answer suggests the URL is not a service root (404, 400, HTML or JSON instead of EDMX).
        public var mayBeWrongRoot: Bool

        public var description: String { sentence }
    }

    /// `$metadata` of the service at `root` (with one trailing slash), or of the service whose entity set
    /// `root` names. Throws ``Failure``.
    ///
    /// - Parameter serviceDocument: whether the annotation documents a v2 service's service document names are read.
    /// - Parameter alongside: that service document already asked, alongside `$metadata` (see ``fetch``); used for
    ///   `root` only, not for a parent tried after it.
    public static func load(
        root: String, transport: any ODataTransport, serviceDocument: Bool = true,
        alongside: Task<Advertised, Never>? = nil
    ) async throws -> Loaded {
        do {
            if alongside != nil {
                return try await fetch(
                    root: root, transport: transport, serviceDocument: serviceDocument, alongside: alongside)
            }
            // (the service document is asked once the root is settled: a set's URL read as one reads the set)
            let bare = try await fetch(root: root, transport: transport, serviceDocument: false)
            if let parent = await parentNamingLastSegment(
                of: bare, transport: transport, serviceDocument: serviceDocument)
            {
                return parent
            }
            guard serviceDocument, bare.model.dialect == .v2 else { return bare }
            return await advertising(bare, transport: transport)
        } catch let failure as Failure {
            guard failure.mayBeWrongRoot else { throw failure }
            // A URL below a service root (a set, an entity, a path on from it): the nearest root above that has it.
            for (parent, path) in parentRoots(of: root) {
                let loaded: Loaded
                do {
                    loaded = try await fetch(root: parent, transport: transport, serviceDocument: serviceDocument)
                } catch let higher as Failure where higher.mayBeWrongRoot {
                    continue
                } catch {
                    break
                }
                let first = path.split(separator: "/").first.map { String($0.prefix { $0 != "(" }) } ?? ""
                guard let set = first.removingPercentEncoding, loaded.model.entitySet(named: set) != nil else { break }
                var found = loaded
                // (a singleton is one entity: its path opens it, no list)
                found.entitySet = loaded.model.entitySet(named: set)?.isSingleton == true ? nil : set
                found.path = path
                return found
            }
            throw failure
        }
    }

    /// `loaded` (a v2 service's, read with no service document) with the annotation documents its service document
    /// names merged in.
    static func advertising(_ loaded: Loaded, transport: any ODataTransport) async -> Loaded {
        loaded.merging(await advertisedAnnotations(root: loaded.root, transport: transport))
    }

    /// A lax server answers `$metadata` below its root too (pyslet serves it at `Cars/$metadata`): a URL whose last
    /// segment names one of the sets that document describes is that set, when the root above it answers a
    /// `$metadata` describing the set as well. Asked only then; nil keeps the URL as the root.
    static func parentNamingLastSegment(
        of loaded: Loaded, transport: any ODataTransport, serviceDocument: Bool
    ) async -> Loaded? {
        guard let (parent, path) = parentRoots(of: loaded.root).first,
            let set = String(path.prefix { $0 != "(" }).removingPercentEncoding,
            loaded.model.entitySet(named: set) != nil,
            var found = try? await fetch(
                root: parent, transport: transport, serviceDocument: serviceDocument, named: false),
            let described = found.model.entitySet(named: set)
        else { return nil }
        found.entitySet = described.isSingleton ? nil : set
        found.path = path
        return found
    }

    /// `$metadata` of the service at `root` exactly; for a v2 service, with the annotation documents its service
    /// document names (`serviceDocument` false skips that). Throws ``Failure``.
    ///
    /// The service document is asked once `$metadata` has answered, unless the caller asked it `alongside`
    /// (``advertisedAnnotations(root:transport:catalog:)`` in a task started with the `$metadata` request): only a caller
    /// that knows `root` is a service root may, since a URL naming an entity set would have that whole set read
    /// for nothing. A v4 service carries its annotations in `$metadata`: what was asked alongside is then dropped.
    ///
    /// `catalog` false: the SAP catalog is known to have no annotation document for the service; it is not asked.
    ///
    /// `named` false: the root came from another service, not from the user, so a failure says only what went
    /// wrong, with no hint to check the URL.
    public static func fetch(
        root: String, transport: any ODataTransport, serviceDocument: Bool = true, catalog: Bool = true,
        named: Bool = true, alongside: Task<Advertised, Never>? = nil
    ) async throws -> Loaded {
        // (a failure below leaves nothing running that was asked for it)
        var answered = false
        defer { if !answered { alongside?.cancel() } }
        func hint(_ root: String) -> String { named ? Self.hint(root) : "" }
        let url = ODataURLBuilder(serviceRoot: root).metadataURL
        let response: TransportResponse
        do {
            response = try await transport.send(TransportRequest(url: url, acceptsXML: true))
        } catch let error as ODataError {
            throw Failure(
                sentence: named ? "Could not load the service's $metadata. \(error)" : "\(error)", mayBeWrongRoot: false
            )
        }
        guard response.status == 200 else {
            let error = ODataError.fromResponse(
                status: response.status, url: url, contentType: response.headers["content-type"], body: response.body)
            let wrongRoot = response.status == 404 || response.status == 400
            throw Failure(sentence: error.description + (wrongRoot ? hint(root) : ""), mayBeWrongRoot: wrongRoot)
        }
        do {
            let model = try EDMXParser.parse(response.body)
            answered = true
            var advertised = Advertised()
            if serviceDocument && model.dialect == .v2 {
                if let alongside {
                    advertised = await alongside.value
                } else {
                    advertised = await advertisedAnnotations(root: root, transport: transport, catalog: catalog)
                }
            } else {
                alongside?.cancel()
            }
            return Loaded(root: root, model: model, document: response.body, entitySet: nil).merging(advertised)
        } catch {
            let what = kind(of: response.body, contentType: response.headers["content-type"])
            let reason =
                what.map { "the answer is \($0), not the EDMX XML of a $metadata document" }
                ?? "\(error.reason) (line \(error.line))"
            let sentence = ODataError(kind: .metadata, message: reason, url: url).description
            throw Failure(sentence: sentence + (what != nil ? hint(root) : ""), mayBeWrongRoot: what != nil)
        }
    }

    /// What a body that is not EDMX is, when it is recognisably something else.
    static func kind(of body: [UInt8], contentType: String?) -> String? {
        let type = (contentType ?? "").lowercased()
        let start = String(decoding: body.prefix(512), as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if type.contains("html") || start.lowercased().hasPrefix("<!doctype html")
            || start.lowercased().hasPrefix("<html")
        {
            return "an HTML page"
        }
        if type.contains("json") || start.hasPrefix("{") || start.hasPrefix("[") { return "JSON" }
        return nil
    }

    /// What to check when the URL may not be a service root.
    static func hint(_ root: String) -> String {
        ". Is \(root) the service root? It is the URL whose $metadata describes the service, often ending in .svc/"
    }

    /// The URLs above `root` that may be its service root, nearest first, at most ``deepestPath`` levels up, each
    /// with what `root` names below it: `…/svc/Car(3)` → `…/svc/` and `Car(3)`; `…/ks/Car/3` → `…/ks/Car/` and `3`,
    /// then `…/ks/` and `Car/3`. The query and fragment are left out; a segment that is no name (nor a name and
    /// a key) ends the search.
    static func parentRoots(of root: String) -> [(root: String, path: String)] {
        guard var components = URLComponents(string: root) else { return [] }
        components.query = nil
        components.fragment = nil
        let segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
        var found: [(root: String, path: String)] = []
        // (a service may sit at the host's root: pyslet's does)
        for depth in 1...deepestPath where segments.count >= depth {
            let first = segments[segments.count - depth]
            let name = String(first.prefix { $0 != "(" }).removingPercentEncoding ?? ""
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
                break
            }
            let above = segments.dropLast(depth)
            components.percentEncodedPath = above.isEmpty ? "/" : "/" + above.joined(separator: "/") + "/"
            guard let parent = components.string else { break }
            found.append((parent, segments.suffix(depth).joined(separator: "/")))
        }
        return found
    }

    /// How many segments below a service root a URL given to `browse` may name (`Car/3/PersonCar`).
    static let deepestPath = 3
}

extension MetadataLoader {
    /// What a session opens on: its service root, its cache and the model `$metadata` describes.
    public struct Opened: Sendable {
        /// The service root, with one trailing slash (the parent of the given URL when that named an entity set).
        public var root: String
        public var cache: CacheDatabase
        public var model: ServiceModel
        /// The entity set the given URL named, to open first.
        public var entitySet: String?
        /// What the given URL named under ``root``, from that set on (`Car(3)`, `Car/3`, `Person(1)/Trips`).
        public var path: String?
        /// Whether the model is the cached copy (a warm or offline start) rather than one just fetched.
        public var fromCache: Bool
        /// Sentences for the log: annotation documents that could not be had or read.
        public var notes: [String] = []
    }

    /// The one way a session's `$metadata` is loaded, for the executable and every test.
    ///
    /// A warm start (the cache at `cachePath(root)` holds a readable document) uses the cached copy at once, so
    /// the first frame needs no request; the service's current document is fetched in the background and stored
    /// for the next start (when it speaks another dialect than the cached one, the cache is emptied first). A cold start fetches it (``load(root:transport:)``: a URL naming an entity set opens
    /// that set under its service root, whose cache is then `cachePath(parent)`) and stores it. Neither: a
    /// ``Failure`` that says what to check.
    ///
    /// The annotation documents the service advertises are stored with `$metadata` and merged with it; those
    /// `annotationSources` names (files or URLs, `--annotations`) are read at every start and merged last.
    ///
    /// - Parameter cachePath: the cache file for a service root; nil keeps the cache in memory.
    /// A cold start asks a v2 service's service document (for the annotation documents it names) alongside
    /// `$metadata` when `root` is known to be a service root: `exactRoot`, or written with its trailing slash (an
    /// entity set's URL is written without one) and not an SAP v4 one (`/sap/opu/odata4/`, whose annotations are in
    /// `$metadata`); otherwise once `$metadata` has answered.
    ///
    /// - Parameter exactRoot: `root` is a service root, never an entity set's URL (one another service named): no
    ///   parent is tried.
    /// - Parameter serviceDocument: false reads no annotation document the service advertises, neither from the
    ///   service nor from the cache (`--no-annotation-documents`); those stored stay for a later start.
    public static func open(
        root: String, transport: any ODataTransport, annotationSources: [String] = [], exactRoot: Bool = false,
        serviceDocument: Bool = true, cachePath: @Sendable (String) -> String?
    ) async throws -> Opened {
        let writtenAsRoot = root.hasSuffix("/")
        let root = writtenAsRoot ? root : root + "/"
        if let path = cachePath(root), FileManager.default.fileExists(atPath: path),
            let warm = try? CacheDatabase(path: path), let bytes = try? warm.metadataDocument(),
            let cached = try? EDMXParser.parse(bytes)
        {
            let dialect = cached.dialect
            Task.detached {
                let catalog = !((try? warm.serviceFacts())?.contains(.catalogHasNoAnnotations) ?? false)
                guard
                    let fresh = try? await fetch(
                        root: root, transport: transport, serviceDocument: serviceDocument, catalog: catalog)
                else { return }
                // A service that changed dialect (v2 to v4 at the same root) is a different cache: what this one
                // holds is dropped, and the next start begins afresh in the new dialect.
                if fresh.model.dialect != dialect { try? warm.clear() }
                let annotations = fresh.annotations.map { ($0.source, $0.document) }
                // (a service document or annotation document not had this time leaves the stored ones as they are)
                let replaceAnnotations = fresh.annotationsComplete && serviceDocument
                try? await warm.write {
                    try $0.storeMetadataDocument(fresh.document, at: Date())
                    if replaceAnnotations { try $0.storeAnnotationDocuments(annotations, at: Date()) }
                    if fresh.catalogHasNoAnnotations { try $0.learn(.catalogHasNoAnnotations) }
                }
            }
            var notes: [String] = []
            let stored =
                serviceDocument
                ? ((try? warm.annotationDocuments()) ?? []).map {
                    AnnotationDocument(source: $0.source, document: $0.document)
                } : []
            let model = await merged(
                merged(cached, with: stored, notes: &notes), withGiven: annotationSources, transport: transport,
                notes: &notes)
            return Opened(
                root: root, cache: warm, model: model, entitySet: nil, path: nil, fromCache: true, notes: notes)
        }
        // (the documents the user names are asked alongside `$metadata`, not after it)
        async let given = givenAnnotations(annotationSources, transport: transport)
        let alongside =
            serviceDocument && (exactRoot || writtenAsRoot) && !root.lowercased().contains("/sap/opu/odata4/")
            ? Task { await advertisedAnnotations(root: root, transport: transport) } : nil
        let loaded =
            exactRoot
            ? try await fetch(
                root: root, transport: transport, serviceDocument: serviceDocument, named: false, alongside: alongside)
            : try await load(
                root: root, transport: transport, serviceDocument: serviceDocument, alongside: alongside)
        let cache = try cachePath(loaded.root).map { try CacheDatabase(path: $0) } ?? CacheDatabase()
        let document = loaded.document
        let annotations = loaded.annotations.map { ($0.source, $0.document) }
        try await cache.write {
            try $0.storeMetadataDocument(document, at: Date())
            // (none read: those a cache holds stay for a start that reads them)
            if serviceDocument { try $0.storeAnnotationDocuments(annotations, at: Date()) }
            if loaded.catalogHasNoAnnotations { try $0.learn(.catalogHasNoAnnotations) }
        }
        var notes = loaded.notes
        let model = merged(loaded.model, withGiven: await given, notes: &notes)
        return Opened(
            root: loaded.root, cache: cache, model: model, entitySet: loaded.entitySet, path: loaded.path,
            fromCache: false, notes: notes)
    }
}
