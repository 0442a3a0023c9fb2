import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

/// `:save FILE` (issue 37): the media of the entity shown, of the selected row, or the stream property under the
/// cursor, saved to a file by the fetcher; its progress on the status line, Esc stops it. `:upload FILE` puts a
/// file's content in their place on the service, once the user said yes.
extension BrowserApp {
    /// Starts saving; what to say now (nil once it has started: the status line follows it from there).
    func saveStream(to rawPath: String) -> String? {
        guard let downloads = environment.downloads else {
            return "This session saves no files (over SSH they would be written on the server)."
        }
        guard let found = streamHere else {
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

    /// The stream `:save` or `:upload` works on here: the one under the cursor in an entity's details, else its
    /// media; on a list, the selected row's media.
    var streamHere: (key: EntityKey, stream: MediaStream)? {
        switch stack.top {
        case let detail as EntityDetailController where detail.environment === environment:
            return detail.streamToSave
        case let list as EntityListController where list.environment === environment:
            return list.streamToSave
        default:
            return nil
        }
    }

    /// `:upload FILE`: asks whether to put the file's content in place of the stream's (the next key answers,
    /// ``answerUpload(_:)``); what to say now.
    func askToUpload(from rawPath: String) -> String {
        guard environment.downloads != nil else {
            return "This session uploads no files (over SSH they would be read on the server)."
        }
        guard let found = streamHere else {
            return "Nothing here to upload to: :upload replaces a media entity's content (a photo, a document), or "
                + "the stream under the cursor in its details."
        }
        guard environment.writes != nil else { return "This session changes nothing on the service." }
        if environment.model.entitySet(named: found.key.entitySet)?.isUpdatable == false {
            return "The service does not let \(found.key.entitySet) be changed, so its content stays."
        }
        var path = (rawPath as NSString).expandingTildeInPath
        if !path.hasPrefix("/") { path = FileManager.default.currentDirectoryPath + "/" + path }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return "There is no file \(rawPath) to upload."
        }
        if isDirectory.boolValue { return "\(rawPath) is a directory: name the file to upload." }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        let type = Self.contentType(ofFile: path) ?? found.stream.contentType ?? "application/octet-stream"
        // (named by the file's name alone: the question must fit the status line, its answer keys first of all)
        let name = (path as NSString).lastPathComponent
        let upload = StreamUpload(key: found.key, stream: found.stream, path: path, shownPath: name, contentType: type)
        pendingUpload = upload
        let what = found.stream.property.map { "\(found.key.canonical)'s \($0)" } ?? found.key.canonical
        let now = found.stream.contentType.map { " (now " + String($0.prefix(60)) + ")" } ?? ""
        return "y uploads \(name) (\(Self.size(size)), \(type)) in place of \(what)\(now); any other key keeps it"
    }

    /// The key after `:upload`'s question: `y` sends the upload, any other keeps the content.
    func answerUpload(_ key: Key) {
        guard let upload = pendingUpload else { return }
        pendingUpload = nil
        if key == .char("y"), let downloads = environment.downloads {
            downloads.upload(upload)
        } else {
            commandMessage = "Nothing was uploaded."
        }
    }

    /// What a file holds, by its name's extension; nil when the extension says nothing known.
    static func contentType(ofFile path: String) -> String? {
        let types = [
            "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
            "svg": "image/svg+xml", "pdf": "application/pdf", "txt": "text/plain", "csv": "text/csv",
            "json": "application/json", "xml": "application/xml", "html": "text/html", "zip": "application/zip",
            "mp4": "video/mp4", "mp3": "audio/mpeg",
        ]
        return types[(path as NSString).pathExtension.lowercased()]
    }

    /// The status line while a download runs: how far it is, and how to stop it.
    var runningDownload: String? {
        guard let download = status?.download, download.state == .running else { return nil }
        if download.isUpload {
            let size = download.expected.map { " (" + Self.size($0) + ")" } ?? ""
            return "Uploading \(download.path)\(size) to \(download.subject) · Esc stops it"
        }
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
        if download.isUpload {
            switch download.state {
            case .running:
                return "Uploading \(download.path) to \(download.subject)"
            case .saved:
                let kind = download.contentType.map { ", " + String($0.prefix(80)) } ?? ""
                return "Uploaded \(download.path) to \(download.subject): \(size(download.received))\(kind)"
            case .failed(let sentence):
                return "\(download.path) was not uploaded to \(download.subject): \(sentence)"
            case .cancelled:
                return "Stopped uploading \(download.path) to \(download.subject)"
            }
        }
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
