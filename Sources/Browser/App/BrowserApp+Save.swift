import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// `:save FILE` (issue 37): the media of the entity shown, of the selected row, or the stream property under the
/// cursor, saved to a file by the fetcher; its progress on the status line, Esc stops it.
extension BrowserApp {
    /// Starts saving; what to say now (nil once it has started: the status line follows it from there).
    func saveStream(to rawPath: String) -> String? {
        guard let downloads = environment.downloads else {
            return "This session saves no files (over SSH they would be written on the server)."
        }
        let found: (key: EntityKey, stream: MediaStream)?
        switch stack.top {
        case let detail as EntityDetailController where detail.environment === environment:
            found = detail.streamToSave
        case let list as EntityListController where list.environment === environment:
            found = list.streamToSave
        default:
            found = nil
        }
        guard let found else {
            return "Nothing here to save: :save saves a media entity's content (a photo, a document), or the stream "
                + "under the cursor in its details."
        }
        var path = (rawPath as NSString).expandingTildeInPath
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            return "\(rawPath) is a directory: name the file to save to."
        }
        downloads.download(StreamDownload(key: found.key, stream: found.stream, path: path, shownPath: rawPath))
        return nil
    }

    /// The status line while a download runs: how far it is, and how to stop it.
    var runningDownload: String? {
        guard let download = status?.download, download.state == .running else { return nil }
        var line = "Saving \(download.subject) to \(download.path): \(Self.size(download.received))"
        if let expected = download.expected, expected > 0 {
            let width = 20
            let filled = min(width, Int(Double(download.received) / Double(expected) * Double(width)))
            line += " of \(Self.size(expected)) ["
            line += String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled) + "]"
        }
        return line + " · Esc stops it"
    }

    /// How a download ended.
    static func sentence(for download: DownloadProgress) -> String {
        switch download.state {
        case .running:
            return "Saving \(download.subject) to \(download.path)"
        case .saved:
            let kind = download.contentType.map { ", " + String($0.prefix(80)) } ?? ""
            return "Saved \(download.subject) to \(download.path): \(size(download.received))\(kind)"
        case .failed(let sentence):
            return "\(download.subject) was not saved: \(sentence)"
        case .cancelled:
            return "Stopped saving \(download.subject); nothing was written to \(download.path)"
        }
    }

    /// `812 bytes`, `48.2 KB`, `3.3 MB`.
    static func size(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: return bytes == 1 ? "1 byte" : "\(bytes) bytes"
        case ..<(1024 * 1024): return String(format: "%.1f KB", Double(bytes) / 1024)
        default: return String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
        }
    }
}
