import Foundation
import Testing

/// Compares a rendered frame with `Snapshots/<name>.txt` next to this file.
///
/// Set `RECORD_SNAPSHOTS=1` to re-record. A missing snapshot is recorded and the test fails,
/// so a new snapshot is always looked at once before it guards anything.
func assertSnapshot(_ lines: [String], named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")
    let file = directory.appendingPathComponent(name + ".txt")
    // Trailing blanks are kept visible with a frame, so alignment differences show in a diff.
    let text = lines.map { "|" + $0 + "|" }.joined(separator: "\n") + "\n"
    let record = ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] != nil
    guard !record, let expected = try? String(contentsOf: file, encoding: .utf8) else {
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? text.write(to: file, atomically: true, encoding: .utf8)
        if !record {
            Issue.record("Recorded a new snapshot \(name).txt; check it and run again.", sourceLocation: sourceLocation)
        }
        return
    }
    #expect(text == expected, "frame differs from \(name).txt:\n\(text)", sourceLocation: sourceLocation)
}
