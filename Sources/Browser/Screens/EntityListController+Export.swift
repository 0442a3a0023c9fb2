import EntityCache
import Foundation
import ODataCore

/// `:export FILE.csv|FILE.json`: the list on screen (filtered as it is), from the cache.
extension EntityListController {
    /// Writes every row when every row is cached; otherwise says how many are and what writes them all.
    func export(to rawPath: String) -> String {
        let path = (rawPath as NSString).expandingTildeInPath
        let format = (path as NSString).pathExtension.lowercased()
        guard format == "csv" || format == "json" else { return "Name the file .csv or .json: \(rawPath)" }
        guard let set = shownSet, let type = environment.model.entityType(ofSet: set) else {
            return "This screen has no entities to export."
        }
        var entities: [CachedEntity] = []
        entities.reserveCapacity(rowCount)
        for position in 0..<rowCount {
            guard let entity = row(at: position)?.shown else {
                let cached = (0..<rowCount).filter { row(at: $0)?.shown != nil }.count
                return "Only \(cached) of \(rowCount) rows are cached yet: scroll through them first, or run "
                    + "cardealer export URL \(set) for every row."
            }
            entities.append(entity)
        }
        let columns = environment.model.properties(of: type).map(\.name)
        var text: String
        if format == "csv" {
            text = CSV.record(columns)
            for entity in entities { text += CSV.record(columns.map { CSV.text(entity[$0]) }) }
        } else {
            let objects = entities.map { entity in
                PlainJSON.object(columns.compactMap { name in entity.properties.first { $0.name == name } })
            }
            text = objects.isEmpty ? "[]\n" : "[\n" + objects.joined(separator: ",\n") + "\n]\n"
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            return "Could not write \(rawPath)."
        }
        return "Wrote \(entities.count) \(set) to \(rawPath)"
    }
}
