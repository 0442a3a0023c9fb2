import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `:save FILE` (issue 37): a media entity's content or a stream property's, read piece by piece into a file, its
/// progress on the status (``EntityCache/SyncStatus/download``). One at a time; a new one cancels the one under way.
/// The file appears whole or not at all: the pieces go to a hidden file beside it, renamed onto it at the end.
extension SyncEngine: DownloadIntents {
    public nonisolated func download(_ download: StreamDownload) {
        intents.yield(.download(download))
    }

    public nonisolated func cancelDownload() {
        intents.yield(.cancelDownload)
    }

    public nonisolated func measure(_ stream: MediaStream, of key: EntityKey) {
        intents.yield(.measure(stream, key))
    }

    /// Asks the service for the size of `stream` of `key`: a `HEAD` of the URL `:save` reads (the same origin only,
    /// as any request), its `Content-Length` kept with the entity. Once per stream while its copy holds none;
    /// offline, not at all (the screen asks again when it is shown again).
    func startMeasuring(_ stream: MediaStream, of key: EntityKey) {
        let subject = key.canonical + "\u{1F}" + stream.lengthKey
        guard isOnline, !measuring.contains(subject) else { return }
        measuring.insert(subject)
        let url = stream.url(
            entityURL: builder.url(ResourcePath(key), QueryOptions()), serviceRoot: builder.serviceRoot)
        var request = TransportRequest(url: url, headers: ["Accept": "*/*"], dialect: model?.dialect)
        request.method = .head
        let (transport, clock, cache) = (self.transport, self.clock, self.cache)
        Task { [weak self] in
            let started = clock.now()
            var entry = RequestLogEntry(
                url: url, status: nil, bytes: 0, duration: 0, outcome: .failed, startedAt: started, attempts: 1,
                method: "HEAD")
            var length: Int64?
            do {
                let response = try await transport.send(request)
                entry.status = response.status
                if (200..<300).contains(response.status) {
                    entry.outcome = .fetched
                    length = response.headers["content-length"].flatMap { Int64($0) }.flatMap { $0 >= 0 ? $0 : nil }
                }
            } catch {
                entry.error = (error as? ODataError)?.description ?? String(describing: error)
            }
            entry.duration = clock.now().timeIntervalSince(started)
            let (logged, found) = (entry, length)
            try? await cache.write { session in
                try session.appendRequestLog(logged)
                if let found { try session.keepStreamLength(key, name: stream.lengthKey, length: found) }
            }
            await self?.measured(subject)
        }
    }

    func measured(_ subject: String) {
        measuring.remove(subject)
    }

    /// A new transfer of `stream` of `key` (`:save` or `:upload`): the one under way is cancelled (awaited by the new
    /// one's task before it begins), and the new one is numbered and named.
    func beginTransfer(
        of stream: MediaStream, of key: EntityKey
    ) -> (previous: Task<Void, Never>?, id: Int, subject: String) {
        let previous = downloadTask
        previous?.cancel()
        downloads.started += 1
        return (previous, downloads.started, key.canonical + (stream.property.map { " " + $0 } ?? ""))
    }

    /// Starts saving `download`'s stream (cancelling one under way).
    func startDownload(_ download: StreamDownload) {
        // (the one under way ends, its part file gone, before this one begins)
        let (previous, id, subject) = beginTransfer(of: download.stream, of: download.key)
        let url = download.stream.url(
            entityURL: builder.url(ResourcePath(download.key), QueryOptions()), serviceRoot: builder.serviceRoot)
        downloads.progress = DownloadProgress(
            id: id, subject: subject, path: download.shownPath, contentType: download.stream.contentType)
        publishStatus()
        let file = DownloadFile(target: download.path, shownPath: download.shownPath, id: id)
        let report: @Sendable (Int, Int?) -> Void = { [weak self] received, expected in
            guard let self else { return }
            Task { await self.downloadProgressed(id, received: received, expected: expected) }
        }
        // (a stream is whatever the service holds, not OData JSON: a strict service answers 406 to JSON alone)
        let request = TransportRequest(url: url, headers: ["Accept": "*/*"], dialect: model?.dialect)
        let (transport, clock, cache) = (self.transport, self.clock, self.cache)
        downloadTask = Task { [weak self] in
            await previous?.value
            let started = clock.now()
            var entry = RequestLogEntry(
                url: url, status: nil, bytes: 0, duration: 0, outcome: .failed, startedAt: started, attempts: 1)
            let ending: DownloadProgress.State
            var contentType: String?
            do {
                let response = try await transport.download(request, into: file.sink(report: report))
                entry.status = response.status
                contentType = response.headers["content-type"]
                if Task.isCancelled {
                    // (Esc after the last piece came: still nothing written)
                    file.discard()
                    (ending, entry.outcome) = (.cancelled, .cancelled)
                } else if response.status == 204 {
                    file.discard()
                    ending = .failed("the service holds no content for it (HTTP 204)")
                } else if (200..<300).contains(response.status) {
                    try file.finish()
                    ending = .saved
                    entry.outcome = .saved
                } else {
                    file.discard()
                    let error = ODataError.fromResponse(
                        status: response.status, url: url, contentType: response.headers["content-type"],
                        body: response.body)
                    ending = .failed(error.description)
                    entry.error = error.description
                }
            } catch is CancellationError {
                file.discard()
                ending = .cancelled
                entry.outcome = .cancelled
            } catch {
                file.discard()
                let sentence = file.writeFailure ?? String(describing: error)
                ending = Task.isCancelled ? .cancelled : .failed(sentence)
                if Task.isCancelled { entry.outcome = .cancelled } else { entry.error = sentence }
            }
            entry.bytes = file.received
            entry.duration = clock.now().timeIntervalSince(started)
            let logged = entry
            _ = try? await cache.write { try $0.appendRequestLog(logged) }
            await self?.downloadEnded(id, state: ending, received: file.received, contentType: contentType)
        }
    }

    /// Esc while saving: the download stops and its file goes.
    func stopDownload() {
        downloadTask?.cancel()
    }

    func downloadProgressed(_ id: Int, received: Int, expected: Int?) {
        guard var progress = downloads.progress, progress.id == id, progress.state == .running else { return }
        progress.received = max(progress.received, received)
        progress.expected = expected
        downloads.progress = progress
        publishStatus()
    }

    func downloadEnded(_ id: Int, state: DownloadProgress.State, received: Int, contentType: String?) {
        guard var progress = downloads.progress, progress.id == id else { return }
        progress.state = state
        progress.received = received
        if let contentType, !contentType.isEmpty { progress.contentType = contentType }
        downloads.progress = progress
        downloadTask = nil
        publishStatus()
    }
}

/// The engine's downloads: how many this process started (each progress names its own), and the last one's.
struct Downloads {
    var started = 0
    var progress: DownloadProgress?
}

/// The file a download writes: a hidden part beside the target (made when the answer starts), renamed onto the
/// target once whole, removed otherwise. Written from the transport's tasks, read by the engine: its state is under
/// one lock.
final class DownloadFile: Sendable {
    let target: String
    let part: String
    let shownPath: String
    private struct State {
        var descriptor: Int32 = -1
        var received = 0
        var writeFailure: String?
        var lastReport: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    /// How often progress is told while bytes arrive.
    static let reportInterval: Duration = .milliseconds(100)

    /// The part is named for this process, this download and a random number, and made afresh (never an existing
    /// file or a link planted under its name); a long name is cut so that the part's still fits.
    init(target: String, shownPath: String, id: Int) {
        self.target = target
        self.shownPath = shownPath
        let directory = (target as NSString).deletingLastPathComponent
        var name = (target as NSString).lastPathComponent
        while name.utf8.count > 150 { name.removeLast() }
        let unique = "\(getpid())-\(id)-\(UInt32.random(in: 0...UInt32.max))"
        part = (directory.isEmpty ? "" : directory + "/") + "." + name + ".cardealer-part-" + unique
    }

    var received: Int { state.withLock { $0.received } }
    /// Why the file could not be written, when that is what ended the download.
    var writeFailure: String? { state.withLock { $0.writeFailure } }

    func sink(report: @escaping @Sendable (Int, Int?) -> Void) -> DownloadSink {
        let expected = Mutex<Int?>(nil)
        return DownloadSink(
            started: { [self] length in
                expected.withLock { $0 = length }
                try makePart()
                report(0, length)
            },
            received: { [self] bytes in
                let (total, due) = try append(bytes)
                if due { report(total, expected.withLock { $0 }) }
            })
    }

    private func makePart() throws {
        let descriptor = open(part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure(errno) }
        state.withLock { state in
            if state.descriptor >= 0 { _ = close(state.descriptor) }
            state.descriptor = descriptor
            state.received = 0
        }
    }

    /// Appends `bytes`; the total so far, and whether it is time to tell.
    private func append(_ bytes: [UInt8]) throws -> (Int, Bool) {
        // (the error is thrown once the lock is let go: `failure` takes it again, and a Mutex is not re-entrant)
        let outcome: (told: (Int, Bool)?, errno: Int32) = state.withLock { state in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    write(state.descriptor, raw.baseAddress! + offset, bytes.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return (nil, errno)
                }
                offset += written
            }
            state.received += bytes.count
            let now = ContinuousClock.now
            let due = state.lastReport.map { now - $0 >= Self.reportInterval } ?? true
            if due { state.lastReport = now }
            return ((state.received, due), 0)
        }
        guard let told = outcome.told else { throw failure(outcome.errno) }
        return told
    }

    /// The part made the file (replacing what was there).
    func finish() throws {
        let descriptor = state.withLock { state in
            defer { state.descriptor = -1 }
            return state.descriptor
        }
        if descriptor < 0 {
            // (an empty answer: no piece came, so no part was made)
            try makePart()
            return try finish()
        }
        guard fsync(descriptor) == 0 || errno == EINVAL else {
            let error = failure(errno)
            _ = close(descriptor)
            discard()
            throw error
        }
        _ = close(descriptor)
        guard rename(part, target) == 0 else {
            let error = failure(errno)
            discard()
            throw error
        }
    }

    /// Nothing is left of the part.
    func discard() {
        let descriptor = state.withLock { state in
            defer { state.descriptor = -1 }
            return state.descriptor
        }
        if descriptor >= 0 { _ = close(descriptor) }
        _ = unlink(part)
    }

    private func failure(_ code: Int32) -> ODataError {
        let sentence = "\(shownPath) could not be written: \(String(cString: strerror(code)))"
        state.withLock { $0.writeFailure = sentence }
        return ODataError(kind: .refused, message: sentence)
    }
}
