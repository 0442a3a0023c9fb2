import ArgumentParser
import Foundation
import ODataCore
import Session
import Terminal

#if canImport(Glibc)
import Glibc
#endif

/// `cardealer export URL PATH`: every entity of a list, as CSV or JSON, for scripts; no UI.
///
/// Pages are followed as the service gives them (`__next` / `@odata.nextLink`, on the service's own origin),
/// each row written as soon as its page arrives, so memory stays flat whatever the size.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every entity of a list (an entity set or a navigation path) as CSV or JSON.",
        discussion: """
            Examples: cardealer export http://127.0.0.1:8080/CarDealer.svc/ Person --format csv
                      cardealer export URL 'Person(1)/PersonCar' --format json --output cars.json
            CSV is RFC 4180 (UTF-8, CRLF, a header row of property names); JSON is one array of plain objects \
            with each value in its JSON form (numbers as numbers, Decimal digits as the service sent them, dates \
            in ISO 8601). Written to a terminal, control characters and escape sequences from the service are \
            shown, not obeyed; to a file or a pipe, every byte is kept.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable { case csv, json }

    @Argument(help: "The service root.") var url: String
    @Argument(help: "What to export: an entity set (Person) or a path from one (Person(1)/PersonCar).") var path: String
    @Option(help: "csv or json.") var format: Format = .csv
    @Option(help: ArgumentHelp("Write to FILE instead of standard output.", valueName: "FILE")) var output: String?
    @Option(help: ArgumentHelp("Only entities matching this $filter expression.", valueName: "EXPRESSION"))
    var filter: String?
    @OptionGroup var browserOptions: BrowserOptions
    @OptionGroup var signIn: SignInOptions

    mutating func run() async throws {
        guard let parsed = ResourcePath.parse(relative: path), !parsed.segments.isEmpty else {
            throw ValidationError("'\(path)' is not a path like Person or Person(1)/PersonCar.")
        }
        var settings = try BrowserRunner.settings(
            serviceRoot: url, identity: nil, options: browserOptions, profile: nil)
        try await signIn.apply(to: &settings, serviceRoot: url, config: try await BrowserOptions.loadConfig())
        // (the device grant's code, where a person sees it: the data goes to standard output)
        settings.onSignInPrompt = { text in
            if let text { FileHandle.standardError.write(Data((text + " (waiting)\n").utf8)) }
        }
        let session = try await BrowsingSession.start(settings)
        let model = session.model
        // The entity set the last segment lands in: the first segment's, then each navigation's target.
        guard var set = model.entitySet(named: parsed.segments[0].name)?.name else {
            let names = model.entitySets.map(\.name).prefix(12).joined(separator: ", ")
            throw SessionError("The service has no entity set '\(parsed.segments[0].name)'; it has \(names).")
        }
        for segment in parsed.segments.dropFirst() {
            guard let navigation = model.resolveNavigation(segment.name, fromSet: set) else {
                throw SessionError("\(set) has no navigation '\(segment.name)'.")
            }
            set = navigation.targetSet
        }
        guard let type = model.entityType(ofSet: set) else {
            throw SessionError("The service's $metadata does not describe \(set)'s entity type.")
        }
        let columns = model.properties(of: type).map(\.name)
        let builder = ODataURLBuilder(serviceRoot: session.root, model: model)
        var options = QueryOptions()
        options.filter = filter
        options.formatJSON = model.dialect == .v2
        let decoder = PayloadDecoder(
            serviceRoot: session.root, model: model, maxEntities: browserOptions.maxEntities)

        let sink = try ExportSink(path: output)
        var writer = ExportWriter(format: format, columns: columns, sink: sink)
        // Nothing from a server reaches a terminal unsanitised; a file or a pipe gets every byte.
        writer.sanitise = output == nil && isatty(STDOUT_FILENO) == 1
        writer.begin()
        var next: String? = builder.url(parsed, options)
        var seen: Set<String> = []
        var pages = 0
        while let pageURL = next {
            guard seen.insert(pageURL).inserted else {
                FileHandle.standardError.write(Data("export: the service's next link repeats a page; stopped.\n".utf8))
                break
            }
            let response = try await session.transport.send(
                TransportRequest(url: pageURL, dialect: model.dialect))
            guard (200..<300).contains(response.status) else {
                let error = ODataError.fromResponse(
                    status: response.status, url: pageURL, contentType: response.headers["content-type"],
                    body: response.body)
                throw SessionError("The service answered \(response.status): \(error.message)")
            }
            let payload: ODataPayload
            do {
                payload = try decoder.decode(response.body, entitySet: set, url: pageURL)
            } catch {
                throw SessionError("Page \(pages + 1) could not be read: \(error.message)")
            }
            pages += 1
            switch payload {
            case .collection(let collection):
                for entity in collection.entities { writer.row(entity) }
                next = collection.nextLink.map { $0.contains("://") ? $0 : session.root + $0 }
            case .entity(let entity):
                writer.row(entity)
                next = nil
            case .value:
                throw SessionError("\(path) is a single value, not a list of entities.")
            }
        }
        writer.end()
        try sink.close()
        if output != nil {
            FileHandle.standardError.write(
                Data("export: \(writer.rows) \(set) entities in \(pages) pages to \(output!)\n".utf8))
        }
    }
}

/// Where export's bytes go: standard output or a file, written through a buffer.
final class ExportSink {
    private let handle: FileHandle
    private let ownsHandle: Bool
    private var buffer: [UInt8] = []

    init(path: String?) throws {
        guard let path else {
            handle = .standardOutput
            ownsHandle = false
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let file = FileHandle(forWritingAtPath: path)
        else { throw ValidationError("Could not create \(path).") }
        handle = file
        ownsHandle = true
    }

    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        guard !buffer.isEmpty else { return }
        handle.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    func close() throws {
        flush()
        if ownsHandle { try handle.close() }
    }
}

/// Rows in CSV (RFC 4180) or one JSON array of objects.
struct ExportWriter {
    let format: ExportCommand.Format
    let columns: [String]
    let sink: ExportSink
    private(set) var rows = 0
    /// Whether values are made safe for a terminal (``TextSanitizer``) before they are written.
    var sanitise = false

    init(format: ExportCommand.Format, columns: [String], sink: ExportSink) {
        self.format = format
        self.columns = columns
        self.sink = sink
    }

    func begin() {
        switch format {
        case .csv: sink.write(CSV.record(columns))
        case .json: sink.write("[")
        }
    }

    mutating func row(_ entity: ODataEntity) {
        switch format {
        case .csv:
            let fields = columns.map { name in
                let text = CSV.text(entity[name])
                return sanitise ? TextSanitizer.sanitize(text) : text
            }
            sink.write(CSV.record(fields))
        case .json:
            let properties = columns.compactMap { name in entity.properties.first { $0.name == name } }
            let object = PlainJSON.object(properties)
            sink.write((rows == 0 ? "\n" : ",\n") + (sanitise ? TextSanitizer.sanitize(object) : object))
        }
        rows += 1
    }

    func end() {
        if format == .json { sink.write(rows == 0 ? "]\n" : "\n]\n") }
        sink.flush()
    }
}
