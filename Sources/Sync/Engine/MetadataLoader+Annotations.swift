import Foundation
import ODataCore

/// Annotation documents: what a v2 service advertises in its service document (asked alongside `$metadata` when the
/// URL is known to be a service root, else once `$metadata` has answered: a URL naming an entity set would have its
/// whole list read; the documents it names then asked all at once), and what the user names with `--annotations`
/// (asked alongside `$metadata`, all at once); each merged into the model in turn, a later one overriding an earlier
/// one term by term. One that cannot be had or read is passed over with a sentence for the log.
extension MetadataLoader {
    /// An annotation document and where it came from.
    public struct AnnotationDocument: Sendable, Equatable {
        /// The URL (or file path) it was read from.
        public var source: String
        public var document: [UInt8]

        public init(source: String, document: [UInt8]) {
            self.source = source
            self.document = document
        }
    }

    /// What ``advertisedAnnotations(root:transport:catalog:)`` found.
    public struct Advertised: Sendable {
        /// The SAP catalog's document first (when it has one), then those the service document names, in order.
        public var documents: [AnnotationDocument] = []
        /// A sentence for each that could not be had.
        public var notes: [String] = []
        /// False when the service document, or a document that was asked, could not be had: what was stored before
        /// is then kept rather than replaced by less.
        public var complete = true
        /// The SAP catalog answered 404 (it has no document for this service) or 403 (not for this user): remembered,
        /// not asked again.
        public var catalogHasNone = false
    }

    /// The annotation documents the service document at `root` names (see ``AnnotationLinks``), fetched; and a
    /// sentence for each that could not be had. For an SAP Gateway v2 root, and `catalog` true, the catalog's
    /// document for the service too (``AnnotationLinks/catalogDocument(forServiceAt:)``), asked alongside.
    public static func advertisedAnnotations(
        root: String, transport: any ODataTransport, catalog: Bool = true
    ) async -> Advertised {
        async let fromCatalog = catalogAnnotations(
            catalog ? AnnotationLinks.catalogDocument(forServiceAt: root) : nil, transport: transport)
        var found = Advertised()
        if let response = try? await transport.send(TransportRequest(url: root, acceptsXML: true)),
            response.status == 200
        {
            for result in await fetchAll(AnnotationLinks.links(in: response.body, root: root), transport: transport) {
                switch result {
                case .success(let document): found.documents.append(document)
                case .failure(let note): found.notes.append(note.sentence)
                }
            }
            found.complete = found.notes.isEmpty
        } else {
            found.complete = false
        }
        switch await fromCatalog {
        case nil: break
        case .document(let document)?: found.documents.insert(document, at: 0)
        case .absent?: found.catalogHasNone = true
        case .failed(let note)?:
            found.notes.append(note)
            found.complete = false
        }
        return found
    }

    /// What the SAP catalog answered for one service.
    enum CatalogAnswer: Sendable {
        case document(AnnotationDocument)
        /// 404: it has none; 403: not for this user.
        case absent
        /// Anything else, in a sentence for the log.
        case failed(String)
    }

    /// The catalog document at `url` (nil: none asked).
    static func catalogAnnotations(_ url: String?, transport: any ODataTransport) async -> CatalogAnswer? {
        guard let url else { return nil }
        do {
            let response = try await transport.send(TransportRequest(url: url, acceptsXML: true))
            switch response.status {
            case 200: return .document(AnnotationDocument(source: url, document: response.body))
            // (a user not allowed to read the catalog is not allowed the next time either)
            case 404, 403: return .absent
            default:
                return .failed(
                    "The SAP catalog's annotation document \(url) was not had (HTTP \(response.status)); it is asked "
                        + "again at the next start.")
            }
        } catch {
            return .failed(
                "The SAP catalog's annotation document \(url) was not had (\(error)); it is asked again at the next "
                    + "start.")
        }
    }

    /// The documents at `urls`, asked all at once (not one round trip after another), answered in their order.
    static func fetchAll(
        _ urls: [String], transport: any ODataTransport
    ) async -> [Result<AnnotationDocument, Failure>] {
        await withTaskGroup(of: (Int, Result<AnnotationDocument, Failure>).self) { group in
            for (index, url) in urls.enumerated() {
                group.addTask { (index, await fetchAnnotations(url, transport: transport)) }
            }
            var results: [(Int, Result<AnnotationDocument, Failure>)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The documents `--annotations` names, in order: a URL is fetched, anything else read as a file.
    public static func givenAnnotations(
        _ sources: [String], transport: any ODataTransport
    ) async -> (documents: [AnnotationDocument], notes: [String]) {
        var documents: [AnnotationDocument] = []
        var notes: [String] = []
        func isURL(_ source: String) -> Bool {
            let lower = source.lowercased()
            return lower.hasPrefix("http://") || lower.hasPrefix("https://")
        }
        // (the URLs asked all at once; each document still merged in the order given)
        var fetched = await fetchAll(sources.filter(isURL), transport: transport).makeIterator()
        for source in sources {
            if isURL(source), let result = fetched.next() {
                switch result {
                case .success(let document): documents.append(document)
                case .failure(let note): notes.append(note.sentence)
                }
            } else if let data = FileManager.default.contents(atPath: source) {
                documents.append(AnnotationDocument(source: source, document: Array(data)))
            } else {
                notes.append("The annotation document \(source) could not be read; the service's own are used.")
            }
        }
        return (documents, notes)
    }

    /// `model` with the documents `--annotations` names merged last, what could not be had or read in `notes`.
    static func merged(
        _ model: ServiceModel, withGiven sources: [String], transport: any ODataTransport, notes: inout [String]
    ) async -> ServiceModel {
        guard !sources.isEmpty else { return model }
        return merged(model, withGiven: await givenAnnotations(sources, transport: transport), notes: &notes)
    }

    /// `model` with `given` (what ``givenAnnotations(_:transport:)`` read) merged last.
    static func merged(
        _ model: ServiceModel, withGiven given: (documents: [AnnotationDocument], notes: [String]),
        notes: inout [String]
    ) -> ServiceModel {
        notes += given.notes
        return merged(model, with: given.documents, notes: &notes)
    }

    /// One annotation document by URL.
    static func fetchAnnotations(
        _ url: String, transport: any ODataTransport
    ) async -> Result<AnnotationDocument, Failure> {
        do {
            let response = try await transport.send(TransportRequest(url: url, acceptsXML: true))
            guard response.status == 200 else {
                return .failure(
                    Failure(
                        sentence: "The annotation document \(url) was not had (HTTP \(response.status)); it is "
                            + "passed over.", mayBeWrongRoot: false))
            }
            return .success(AnnotationDocument(source: url, document: response.body))
        } catch {
            return .failure(
                Failure(
                    sentence: "The annotation document \(url) was not had (\(error)); it is passed over.",
                    mayBeWrongRoot: false))
        }
    }

    /// `model` with each document merged in order; a document that is not EDMX is named in `notes` and passed
    /// over (the others still count).
    public static func merged(
        _ model: ServiceModel, with documents: [AnnotationDocument], notes: inout [String]
    ) -> ServiceModel {
        var model = model
        for document in documents {
            do {
                model = try EDMXParser.merge(annotations: document.document, into: model)
            } catch {
                let what = kind(of: document.document, contentType: nil)
                let reason = what.map { "it is \($0), not EDMX" } ?? "\(error.reason) (line \(error.line))"
                notes.append("The annotation document \(document.source) was passed over: \(reason).")
            }
        }
        return model
    }
}
