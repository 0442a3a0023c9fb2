import EntityCache
import Foundation
import ODataCore

/// `:export FILE.csv|FILE.json`: the list on screen (filtered as it is), from the cache.
extension EntityListController {
    /// Writes every row when every row is cached; otherwise, for a stored list, fetches the rest first (the
    /// filter line shows how far it is, Esc cancels). Returns what to say now (nil: the filter line says it).
    func export(to rawPath: String) -> String? {
        guard let file = ExportFile(rawPath) else { return "Name the file .csv or .json: \(rawPath)" }
        guard let set = shownSet, let type = environment.model.entityType(ofSet: set) else {
            return "This screen has no entities to export."
        }
        guard isKnown else { return "This list has not loaded yet." }
        let cachedWhole = (0..<rowCount).allSatisfy { row(at: $0)?.shown != nil }
        guard cachedWhole else { return startExport(file, set: set) }
        let columns = environment.model.properties(of: type).map(\.name)
        var writer = file.writer(columns: columns)
        for position in 0..<rowCount {
            if let entity = row(at: position)?.shown { writer.add(entity, columns: columns) }
        }
        guard let written = writer.finish(to: file.path) else { return "Could not write \(rawPath)." }
        return "Wrote \(written) \(set) to \(rawPath)"
    }

    /// A stored list's rows are fetched to the end before the file is written.
    private func startExport(_ file: ExportFile, set: String) -> String? {
        guard case .list = source, rowModel.all == nil, let request = activeRequest else {
            return "Not every row of this list is cached yet; try again when it has loaded."
        }
        exporting?.stop()
        let export = ListExport(environment: environment, request: request, set: set, file: file) {
            [weak self] in self?.environment.setNeedsDisplay()
        }
        exporting = export
        export.start { [weak self] message in
            guard let self else { return }
            self.exporting = nil
            self.notice = message
            self.environment.setNeedsDisplay()
        }
        return nil
    }

    /// Esc while exporting: nothing is written. (Popping the list ends the export with it: its observation goes.)
    func cancelExport() {
        guard let export = exporting else { return }
        export.stop()
        exporting = nil
        notice = "Export cancelled; nothing written to \(export.file.rawPath)"
        environment.setNeedsDisplay()
    }

    /// The filter line while exporting: a bar, the rows in, and how to stop.
    var exportProgress: String? {
        guard let export = exporting else { return nil }
        let total = export.total
        var line = "Exporting "
        if let total, total > 0 {
            let width = 20
            let filled = min(width, export.cached * width / total)
            line += "\(export.cached) of \(total) rows ["
            line += String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]"
        } else {
            line += "\(export.cached) rows"
        }
        if let error = export.state?.lastError { line += " · \(error)" }
        line += " · Esc cancels · to \(export.file.rawPath)"
        return line
    }
}

/// `:save FILE` on a list: the selected row's media.
extension EntityListController {
    /// The selected entity's own stream, when it is a media entity; nil otherwise.
    var streamToSave: (key: EntityKey, stream: MediaStream)? {
        guard let entity = row(at: cursor.selected)?.shown, !entity.key.isTemporary else { return nil }
        let described = MediaStream.described(in: entity.properties)
        let type = environment.model.entityType(named: entity.type, inSet: entity.entitySet)
        guard described != nil || type.map(environment.model.hasStream) == true else { return nil }
        return (entity.key, described ?? MediaStream())
    }
}

extension EntityListController {
    /// Whether Esc here would go back (not answer a question, stop an export, or leave or clear the filter): while a
    /// stream is saved, such an Esc stops that first.
    var escapeGoesBack: Bool {
        confirmingDelete == nil && exporting == nil && !filter.isEditing && !filter.isActive
    }
}
