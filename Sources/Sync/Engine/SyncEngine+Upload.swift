import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// `:upload FILE` (issue 37): a file's content put in place of a media entity's content or a stream property's, by
/// a `PUT` of the stream's own URL on the service (`…/$value`, `…/photo`: never a read link, which may name another
/// origin), its `Content-Type` what the user's file is. One transfer at a time, shown on the status as a download
/// is; Esc stops it before the service has the whole content.
///
/// * Not queued in the outbox: the content is the file's, read when it is sent, and nothing of a stream is cached
///   to show at once. Offline, nothing is sent (a sentence); the file is untouched, and `:upload` sends it later.
/// * `If-Match`: the stream's own version (`@odata.mediaEtag`) where the service gave one, else the entity's.
///   Services differ on which guards the content (OData's clients send the stream's, odatapy checks the entity's):
///   a `412` to the stream's version, where the entity's is another, is asked once more with the entity's. Either
///   way a version the content has moved on from is refused, never overwritten.
/// * Afterwards the entity is read again: its stream's version, type and size are the service's new ones.
extension SyncEngine {
    public nonisolated func upload(_ upload: StreamUpload) {
        intents.yield(.upload(upload))
    }

    /// The largest file `:upload` sends.
    static let maxUploadBytes = 64 * 1024 * 1024

    /// Starts sending `upload` (cancelling the transfer under way).
    func startUpload(_ upload: StreamUpload) {
        let (previous, id, subject) = beginTransfer(of: upload.stream, of: upload.key)
        var progress = DownloadProgress(
            id: id, subject: subject, path: upload.shownPath, contentType: upload.contentType, isUpload: true)
        guard isOnline else {
            progress.state = .failed("the service is offline; nothing was sent (the file is as it was)")
            downloads.progress = progress
            publishStatus()
            return
        }
        downloads.progress = progress
        publishStatus()
        // (the stream's own address on the service, as its convention names it)
        let url = MediaStream(property: upload.stream.property).url(
            entityURL: builder.url(ResourcePath(upload.key), QueryOptions()), serviceRoot: builder.serviceRoot)
        let entityEtag = (try? cache.entity(upload.key))??.etag
        let versions = [upload.stream.etag, entityEtag].compactMap { $0 }.reduce(into: [String]()) {
            if !$0.contains($1) { $0.append($1) }
        }
        let (transport, clock, cache, dialect) = (self.transport, self.clock, self.cache, model?.dialect)
        downloadTask = Task { [weak self] in
            await previous?.value
            let ending: DownloadProgress.State
            var sent = 0
            switch Self.readUpload(upload.path) {
            case .failure(let refusal):
                ending = .failed(refusal.sentence)
            case .success(let content):
                sent = content.count
                await self?.uploadStarted(id, size: content.count)
                ending = await Self.put(
                    content, to: url, upload: upload, versions: versions, dialect: dialect, transport: transport,
                    clock: clock, cache: cache)
            }
            await self?.uploadEnded(id, key: upload.key, state: ending, sent: sent)
        }
    }

    /// The file's content, or why it cannot be sent.
    nonisolated static func readUpload(_ path: String) -> Result<[UInt8], UploadRefusal> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(UploadRefusal("there is no such file"))
        }
        guard !isDirectory.boolValue else { return .failure(UploadRefusal("it is a directory")) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxUploadBytes else {
            return .failure(UploadRefusal("it is larger than the \(maxUploadBytes / 1024 / 1024) MB an upload may be"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(UploadRefusal("it cannot be read"))
        }
        defer { try? handle.close() }
        // (read up to one byte past the limit: a file that grew since it was measured is refused, not cut)
        guard let data = try? handle.read(upToCount: maxUploadBytes + 1) else {
            return .failure(UploadRefusal("it cannot be read"))
        }
        guard data.count <= maxUploadBytes else {
            return .failure(UploadRefusal("it is larger than the \(maxUploadBytes / 1024 / 1024) MB an upload may be"))
        }
        return .success(Array(data))
    }

    /// Why a file is not sent, in words that follow "was not uploaded: ".
    struct UploadRefusal: Error, Sendable {
        let sentence: String
        init(_ sentence: String) { self.sentence = sentence }
    }

    /// Sends `content` with the first of `versions` (the next one after a 412 to it), each request logged; how it
    /// ended.
    nonisolated static func put(
        _ content: [UInt8], to url: String, upload: StreamUpload, versions: [String], dialect: ODataDialect?,
        transport: any ODataTransport, clock: any SyncClock, cache: CacheDatabase
    ) async -> DownloadProgress.State {
        var remaining = versions
        while true {
            let version = remaining.isEmpty ? nil : remaining.removeFirst()
            var request = TransportRequest(url: url, dialect: dialect)
            request.method = .put
            request.body = content
            request.headers["Content-Type"] = upload.contentType
            if let version { request.headers["If-Match"] = version }
            let started = clock.now()
            var entry = RequestLogEntry(
                url: url, status: nil, bytes: content.count, duration: 0, outcome: .failed, startedAt: started,
                attempts: 1, method: "PUT")
            let ending: DownloadProgress.State
            var again = false
            do {
                let response = try await transport.send(request)
                entry.status = response.status
                if (200..<300).contains(response.status) {
                    entry.outcome = .written
                    ending = .saved
                } else {
                    let error = ODataError.fromResponse(
                        status: response.status, url: url, contentType: response.headers["content-type"],
                        body: response.body)
                    entry.error = error.description
                    again = response.status == 412 && !remaining.isEmpty
                    ending = .failed(
                        response.status == 412
                            ? "its content was changed on the service since it was read (\(error.description))"
                            : error.description)
                }
            } catch is CancellationError {
                entry.outcome = .cancelled
                ending = .cancelled
            } catch {
                let sentence = (error as? ODataError)?.description ?? String(describing: error)
                entry.error = sentence
                ending = Task.isCancelled ? .cancelled : .failed(sentence)
                if Task.isCancelled { entry.outcome = .cancelled }
            }
            entry.duration = clock.now().timeIntervalSince(started)
            let logged = entry
            _ = try? await cache.write { try $0.appendRequestLog(logged) }
            if !again || Task.isCancelled { return ending }
        }
    }

    func uploadStarted(_ id: Int, size: Int) {
        guard var progress = downloads.progress, progress.id == id, progress.state == .running else { return }
        progress.expected = size
        downloads.progress = progress
        publishStatus()
    }

    /// How an upload ended; once the service took it, the entity is read again (its stream's version and type).
    func uploadEnded(_ id: Int, key: EntityKey, state: DownloadProgress.State, sent: Int) {
        if state == .saved { readAgainSoon(key) }
        guard var progress = downloads.progress, progress.id == id else { return }
        progress.state = state
        if state == .saved { progress.received = sent }
        downloads.progress = progress
        downloadTask = nil
        publishStatus()
    }
}
