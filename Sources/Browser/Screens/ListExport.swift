import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// `:export` of a stored list not wholly cached: asks the fetcher for the rows still missing, a window at a time
/// under an identity of its own (so the list keeps announcing what is on screen), and writes the file when every
/// row is in the cache. Cancelled with Esc or by leaving the list; nothing is written until the last row is in.
@MainActor
final class ListExport {
    let environment: BrowserEnvironment
    let request: ListRequest
    let set: String
    let file: ExportFile
    /// Under which the fetcher is told what the export wants (closed on cancel: its fetches stop).
    let id: ScreenID
    /// Asks for a frame when the progress changed.
    let onProgress: () -> Void
    private var observation: CacheObservation?
    /// The last state the cache reported for the list.
    private(set) var state: ListState?
    /// Rows cached, counted from the start of the list.
    private(set) var cached = 0
    /// Where the last window asked for began.
    private var askedFrom: Int?
    /// Rows asked for at a time (a few of the fetcher's pages).
    static let window = 200

    init(
        environment: BrowserEnvironment, request: ListRequest, set: String, file: ExportFile,
        onProgress: @escaping () -> Void
    ) {
        self.environment = environment
        self.request = request
        self.set = set
        self.file = file
        self.onProgress = onProgress
        id = environment.nextScreenID()
    }

    /// Starts watching the list's state; each change asks for the next rows or finishes.
    func start(finished: @escaping (String) -> Void) {
        // The first step now, from what the cache holds; observations deliver later.
        state = try? environment.cache.listState(request.key)
        if let message = step() {
            stop()
            return finished(message)
        }
        // A window of one row still reports the list's state, which changes with every page stored.
        observation = environment.cache.observeListWindow(request.key, range: 0..<1) { [weak self] window in
            guard let self else { return }
            self.state = window.state
            if let message = self.step() {
                self.stop()
                finished(message)
            }
            self.onProgress()
        }
    }

    /// Stops asking; what is cached stays cached.
    func stop() {
        observation?.cancel()
        observation = nil
        environment.intents.screenDidClose(id)
    }

    /// The rows expected in all: the service's count, else what is cached (growing until the list ends).
    var total: Int? { state.flatMap { $0.isComplete ? $0.fetchedCount : $0.totalCount } }

    /// Asks for the first missing rows, or writes the file when none are; the sentence to say when finished.
    func step() -> String? {
        guard let state else { return nil }
        let end = state.isComplete ? state.fetchedCount : (state.totalCount ?? state.fetchedCount + Self.window)
        let missing = (try? environment.cache.listRangeStatus(request.key, range: 0..<end))?.firstMissing
        cached = missing ?? end
        guard let missing else {
            if state.isComplete || state.totalCount != nil { return write(count: end) }
            return nil
        }
        if askedFrom != missing {
            askedFrom = missing
            environment.intents.screenDidShow(
                .list(request), visible: missing..<(missing + Self.window), screen: id)
        }
        return nil
    }

    /// Writes every row, read from the cache a thousand at a time.
    private func write(count: Int) -> String {
        guard let type = environment.model.entityType(ofSet: set) else { return "No entity type for \(set)." }
        let columns = environment.model.properties(of: type).map(\.name)
        var writer = file.writer(columns: columns)
        var partial = 0
        var start = 0
        while start < count {
            let range = start..<min(count, start + 1000)
            guard let window = try? environment.cache.listWindow(request.key, range: range) else {
                return "Could not read the cache; nothing written."
            }
            for row in window.rows {
                guard let entity = row.entity else { return "A row left the cache while exporting; try again." }
                writer.add(entity, columns: columns)
                if !entity.isComplete { partial += 1 }
            }
            start = range.upperBound
        }
        guard let written = writer.finish(to: file.path) else { return "Could not write \(file.rawPath)." }
        // Rows known only in part (a newer version arrived cut to what a list shows) are not passed off as whole.
        let note =
            partial == 0
            ? "" : " (\(partial) known only in part: fields not yet fetched are empty or may be out of date)"
        return "Wrote \(written) \(set) to \(file.rawPath)" + note
    }
}

/// Where `:export` writes, and in which format (from the file's extension).
struct ExportFile {
    let rawPath: String
    let path: String
    let isCSV: Bool

    /// Nil unless the name ends in `.csv` or `.json`.
    init?(_ rawPath: String) {
        self.rawPath = rawPath
        path = (rawPath as NSString).expandingTildeInPath
        let format = (path as NSString).pathExtension.lowercased()
        guard format == "csv" || format == "json" else { return nil }
        isCSV = format == "csv"
    }

    func writer(columns: [String]) -> Writer { Writer(isCSV: isCSV, columns: columns) }

    /// The file's text, built row by row: RFC 4180 CSV under a header, or one JSON array of plain objects.
    struct Writer {
        let isCSV: Bool
        private(set) var text: String
        private(set) var count = 0

        init(isCSV: Bool, columns: [String]) {
            self.isCSV = isCSV
            text = isCSV ? CSV.record(columns) : ""
        }

        mutating func add(_ entity: CachedEntity, columns: [String]) {
            if isCSV {
                text += CSV.record(columns.map { CSV.text(entity[$0]) })
            } else {
                text += (count == 0 ? "[\n" : ",\n")
                text += PlainJSON.object(columns.compactMap { name in entity.properties.first { $0.name == name } })
            }
            count += 1
        }

        /// Writes the file; the number of rows, or nil when it could not be written.
        func finish(to path: String) -> Int? {
            let whole = isCSV ? text : (count == 0 ? "[]\n" : text + "\n]\n")
            guard FileManager.default.createFile(atPath: path, contents: Data(whole.utf8)) else { return nil }
            return count
        }
    }
}
