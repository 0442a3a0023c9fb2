import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ODataHTTP
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// `:save FILE` through the real transport (issue 37): a raw HTTP server on 127.0.0.1 answers the stream in pieces,
/// endlessly, too large, or with an error; the engine writes it to a file that appears whole or not at all.
@Suite struct StreamDownloadTests {
    /// A directory of its own, the server, and an engine whose transport is bound to the server's origin (30 s for
    /// each next piece: the first test holds its answer half-way while it looks).
    struct Setup {
        let directory: String
        let server: ScriptedHTTPServer
        let engine: SyncEngine

        init(
            maxBodyBytes: Int = HTTPClientTransport.defaultMaxBodyBytes, script: @escaping ScriptedHTTPServer.Script
        )
            throws
        {
            directory = try BuiltProducts.temporaryDirectory("stream-download")
            server = try ScriptedHTTPServer(script: script)
            let root = server.url("/svc/")
            let transport = try HTTPClientTransport(
                serviceRoot: root, environment: [:], timeout: 30, maxBodyBytes: maxBodyBytes)
            engine = try SyncEngine.forTesting(
                root: root, transport: transport, model: CarDealerModel.model, clock: SystemClock())
        }

        func file(_ name: String) -> String { directory + "/" + name }

        /// What else is in the directory (a part file left behind would be here).
        var leftovers: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] }

        func save(_ name: String, stream: MediaStream = MediaStream()) {
            engine.download(StreamDownload(key: "Car(1)", stream: stream, path: file(name), shownPath: name))
        }

        /// The download once it has ended (a test failure when it never does).
        func ended() async throws -> DownloadProgress? {
            let ended = try await eventually(seconds: 30) {
                guard let download = try engine.cache.syncStatus().download else { return false }
                return download.state != .running
            }
            #expect(ended, "the download never ended")
            return try engine.cache.syncStatus().download
        }

        /// Car 1 in the cache, at version `etag`, as its screen would have it.
        func cacheCar(etag: String?) async throws -> EntityKey {
            let car = EntityKey(entitySet: "Car", value: .int(1))
            try await engine.cache.write { session in
                try session.upsertEntity(
                    key: car, entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(1))],
                    etag: etag, at: Date(), partial: false)
            }
            return car
        }

        func remove() {
            server.stop()
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static let head = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: 400000\r\nConnection: close\r\n\r\n".utf8)

    @Test func a_stream_goes_to_its_file_piece_by_piece_and_the_file_appears_whole() async throws {
        // Forty pieces of ten thousand bytes (byte i is i mod 251), 50 ms apart, with a pause half-way until the
        // test has looked.
        let halfway = Mutex(false)
        let goOn = Mutex(false)
        let setup = try Setup { _ in
            .stream { send in
                guard send(Self.head) else { return }
                for piece in 0..<40 {
                    if piece == 20 {
                        halfway.withLock { $0 = true }
                        while !goOn.withLock({ $0 }) { usleep(10_000) }
                    }
                    guard send((0..<10_000).map { UInt8((piece * 10_000 + $0) % 251) }) else { return }
                    usleep(50_000)
                }
            }
        }
        defer {
            goOn.withLock { $0 = true }
            setup.remove()
        }
        setup.save("manual.pdf")
        // Half-way: progress against the length announced, the pieces in a hidden file beside, none under the name.
        #expect(
            try await eventually(seconds: 30) {
                let received = try setup.engine.cache.syncStatus().download?.received ?? 0
                return halfway.withLock { $0 } && received > 0
            })
        let partway = try #require(try setup.engine.cache.syncStatus().download)
        #expect(partway.state == .running && partway.expected == 400_000 && partway.received <= 200_000)
        #expect(!FileManager.default.fileExists(atPath: setup.file("manual.pdf")))
        #expect(setup.leftovers.count == 1 && setup.leftovers.first?.hasPrefix(".manual.pdf.") == true)
        goOn.withLock { $0 = true }
        let ended = try #require(try await setup.ended())
        #expect(ended.state == .saved && ended.received == 400_000 && ended.contentType == "application/pdf")
        let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: setup.file("manual.pdf"))))
        #expect(written == (0..<400_000).map { UInt8($0 % 251) })
        #expect(setup.leftovers == ["manual.pdf"])
        // Asked once, at the entity's media by convention, and logged as saved.
        #expect(setup.server.exchanges.map(\.target) == ["/svc/Car(1)/$value"])
        #expect(setup.server.exchanges.first?.header("Accept") == "*/*")
        let log = try setup.engine.cache.requestLog()
        #expect(log.first?.outcome == .saved && log.first?.bytes == 400_000)
    }

    @Test func stopping_a_download_leaves_no_file_and_the_service_sees_the_client_go() async throws {
        let gone = Mutex(false)
        let setup = try Setup { _ in
            .stream { send in
                guard send(Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n".utf8))
                else { return }
                // (endless, a piece every 20 ms, until the client hangs up)
                while send([UInt8](repeating: 7, count: 4096)) { usleep(20_000) }
                gone.withLock { $0 = true }
            }
        }
        defer { setup.remove() }
        try Data("kept".utf8).write(to: URL(fileURLWithPath: setup.file("photo.png")))
        setup.save("photo.png")
        #expect(
            try await eventually(seconds: 30) {
                (try setup.engine.cache.syncStatus().download?.received ?? 0) > 0
            })
        setup.engine.cancelDownload()
        let ended = try await setup.ended()
        #expect(ended?.state == .cancelled)
        // What was there stays, and nothing else is left.
        #expect(try String(contentsOfFile: setup.file("photo.png"), encoding: .utf8) == "kept")
        #expect(setup.leftovers == ["photo.png"])
        #expect(try await eventually(seconds: 30) { gone.withLock { $0 } })
    }

    @Test func a_stream_past_the_answer_limit_ends_with_a_sentence_and_no_file() async throws {
        let setup = try Setup(maxBodyBytes: 64 << 10) { _ in
            .stream { send in
                guard send(Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n".utf8))
                else { return }
                while send([UInt8](repeating: 1, count: 16 << 10)) { usleep(1_000) }
            }
        }
        defer { setup.remove() }
        setup.save("endless.png")
        let ended = try await setup.ended()
        guard case .failed(let sentence)? = ended?.state else {
            Issue.record("not refused: \(String(describing: ended))")
            return
        }
        #expect(sentence.contains("larger than 64 KiB"), "\(sentence)")
        #expect(setup.leftovers.isEmpty)
    }

    @Test func the_services_error_is_a_sentence_and_no_file() async throws {
        let setup = try Setup { _ in
            .bytes(
                ScriptedHTTPServer.response(
                    status: "404 Not Found",
                    body: Array(
                        #"{"error":{"code":"NoMedia","message":{"lang":"en","value":"Car 1 has no photo."}}}"#.utf8)))
        }
        defer { setup.remove() }
        setup.save("car.png")
        let ended = try await setup.ended()
        guard case .failed(let sentence)? = ended?.state else {
            Issue.record("not refused: \(String(describing: ended))")
            return
        }
        #expect(sentence.contains("Car 1 has no photo.") && sentence.contains("404"), "\(sentence)")
        #expect(setup.leftovers.isEmpty)
    }

    @Test func a_read_link_to_another_origin_is_refused_unasked_and_a_relative_one_is_the_services() async throws {
        let setup = try Setup { _ in
            .bytes(ScriptedHTTPServer.response(headers: ["Content-Type: image/png"], body: [1, 2, 3]))
        }
        defer { setup.remove() }
        setup.save("elsewhere.png", stream: MediaStream(readLink: "http://192.0.2.7/photo.png"))
        let refused = try await setup.ended()
        guard case .failed(let sentence)? = refused?.state else {
            Issue.record("not refused: \(String(describing: refused))")
            return
        }
        #expect(sentence.contains("192.0.2.7"), "\(sentence)")
        #expect(setup.server.exchanges.isEmpty && setup.leftovers.isEmpty)
        // A read link relative to the service root, on a stream property: read there.
        setup.save("picture.png", stream: MediaStream(property: "picture", readLink: "Pictures/1"))
        #expect(try await eventually(seconds: 30) { try setup.engine.cache.syncStatus().download?.state == .saved })
        // And a stream property with no read link is read by convention, after its entity.
        setup.save("thumbnail.png", stream: MediaStream(property: "thumbnail"))
        #expect(
            try await eventually(seconds: 30) {
                let download = try setup.engine.cache.syncStatus().download
                return download?.subject == "Car(1) thumbnail" && download?.state == .saved
            })
        #expect(setup.server.exchanges.map(\.target) == ["/svc/Pictures/1", "/svc/Car(1)/thumbnail"])
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: setup.file("picture.png")))) == [1, 2, 3])
    }

    @Test func a_second_save_to_the_same_file_while_the_first_runs_leaves_the_seconds_content_whole() async throws {
        let setup = try Setup { exchange in
            if exchange.connection == 0 {
                // (the first: endless, slow)
                return .stream { send in
                    guard send(Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nConnection: close\r\n\r\n".utf8))
                    else { return }
                    while send([UInt8](repeating: 1, count: 1024)) { usleep(20_000) }
                }
            }
            return .bytes(
                ScriptedHTTPServer.response(
                    headers: ["Content-Type: image/png"], body: [UInt8](repeating: 2, count: 50_000), close: true),
                close: true)
        }
        defer { setup.remove() }
        setup.save("photo.png")
        #expect(
            try await eventually(seconds: 30) { (try setup.engine.cache.syncStatus().download?.received ?? 0) > 0 })
        setup.save("photo.png")
        let ended = try await setup.ended()
        #expect(ended?.id == 2 && ended?.state == .saved, "\(String(describing: ended))")
        #expect(
            try [UInt8](Data(contentsOf: URL(fileURLWithPath: setup.file("photo.png"))))
                == [UInt8](repeating: 2, count: 50_000))
        #expect(setup.leftovers == ["photo.png"])
    }

    @Test func an_answer_of_no_content_is_a_sentence_not_an_empty_file() async throws {
        let setup = try Setup { _ in
            .bytes(Array("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n".utf8), close: true)
        }
        defer { setup.remove() }
        setup.save("nothing.png")
        let ended = try await setup.ended()
        #expect(
            ended?.state == .failed("the service holds no content for it (HTTP 204)"), "\(String(describing: ended))")
        #expect(setup.leftovers.isEmpty)
    }

    @Test func a_streams_size_is_asked_with_a_head_and_kept_with_its_entity_not_read() async throws {
        let asked = Mutex<[String]>([])
        let setup = try Setup { request in
            asked.withLock { $0.append(request.head.components(separatedBy: "\r\n").first ?? "") }
            // (a HEAD answer: the headers a GET would get, no content)
            return .bytes(Self.head, close: true)
        }
        defer { setup.remove() }
        let car = try await setup.cacheCar(etag: "W/\"1\"")
        let manual = MediaStream(property: "manual")
        setup.engine.measure(manual, of: car)
        #expect(
            try await eventually(seconds: 10) {
                MediaStream.described(in: try setup.engine.cache.entity(car)?.properties ?? [], property: "manual")?
                    .length == 400_000
            })
        #expect(asked.withLock { $0 } == ["HEAD /svc/Car(1)/manual HTTP/1.1"])
        // Kept beside the values, the copy as complete and of the version it was
        let kept = try #require(try setup.engine.cache.entity(car))
        #expect(kept.isComplete && kept.etag == "W/\"1\"" && kept["carID"] == .int(1))
        // and the request log says it
        #expect(try setup.engine.cache.requestLog().first?.url.hasSuffix("/svc/Car(1)/manual") == true)
    }

    @Test func a_size_the_service_does_not_say_is_not_made_up() async throws {
        let setup = try Setup { _ in
            .bytes(
                Array("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8),
                close: true)
        }
        defer { setup.remove() }
        let car = try await setup.cacheCar(etag: nil)
        setup.engine.measure(MediaStream(), of: car)
        #expect(try await eventually(seconds: 10) { try setup.engine.cache.requestLog().first?.status == 405 })
        #expect(MediaStream.described(in: try setup.engine.cache.entity(car)?.properties ?? []) == nil)
    }

    @Test func an_upload_puts_the_file_at_the_streams_own_address_guarded_by_its_version() async throws {
        // Given a service that checks the entity's version, not the stream's (as odatapy does)
        let asked = Mutex<[String]>([])
        let setup = try Setup { request in
            let line = request.head.components(separatedBy: "\r\n").first ?? ""
            guard line.hasPrefix("PUT ") || line.hasPrefix("GET /svc/Car(1)") else {
                return .bytes(Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
            }
            let guarded =
                line + " " + (request.header("If-Match") ?? "-") + " " + (request.header("Content-Type") ?? "-")
            asked.withLock { $0.append(guarded) }
            if line.hasPrefix("GET") {
                let body = Array(#"{"d":{"carID":1,"manual@odata.mediaEtag":"W/\"m2\""}}"#.utf8)
                return .bytes(
                    ScriptedHTTPServer.response(headers: ["Content-Type: application/json"], body: body), close: true)
            }
            let status = request.header("If-Match") == "W/\"1\"" ? "204 No Content" : "412 Precondition Failed"
            return .bytes(
                Array("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8), close: true)
        }
        defer { setup.remove() }
        let car = try await setup.cacheCar(etag: "W/\"1\"")
        let content = (0..<5000).map { UInt8($0 % 251) }
        try Data(content).write(to: URL(fileURLWithPath: setup.file("manual.pdf")))
        // When the manual is uploaded (its stream's own version known: W/"m1")
        let manual = MediaStream(property: "manual", readLink: "https://elsewhere.example/m.pdf", etag: "W/\"m1\"")
        setup.engine.upload(
            StreamUpload(
                key: car, stream: manual, path: setup.file("manual.pdf"), shownPath: "manual.pdf",
                contentType: "application/pdf"))
        let done = try await setup.ended()
        // Then it went to the stream's address on the service (not its read link), guarded by the stream's version,
        // and, refused, once more by the entity's; then the entity was read again
        #expect(done?.state == .saved && done?.isUpload == true && done?.received == 5000)
        #expect(
            try await eventually(seconds: 10) { asked.withLock { $0.count } == 3 }, "\(asked.withLock { $0 })")
        #expect(
            asked.withLock { $0 } == [
                #"PUT /svc/Car(1)/manual HTTP/1.1 W/"m1" application/pdf"#,
                #"PUT /svc/Car(1)/manual HTTP/1.1 W/"1" application/pdf"#,
                "GET /svc/Car(1) HTTP/1.1 - -",
            ])
        let log = try setup.engine.cache.requestLog().filter { $0.method == "PUT" }
        #expect(log.map(\.status) == [412, 204] && log.allSatisfy { $0.bytes == 5000 })
    }

    @Test func a_file_that_cannot_be_sent_is_a_sentence_and_nothing_is_asked() async throws {
        let asked = Mutex(0)
        let setup = try Setup { _ in
            asked.withLock { $0 += 1 }
            return .bytes(Array("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8), close: true)
        }
        defer { setup.remove() }
        let car = EntityKey(entitySet: "Car", value: .int(1))
        setup.engine.upload(
            StreamUpload(
                key: car, stream: MediaStream(), path: setup.file("missing.png"), shownPath: "missing.png",
                contentType: "image/png"))
        #expect(try await setup.ended()?.state == .failed("there is no such file"))
        setup.engine.upload(
            StreamUpload(
                key: car, stream: MediaStream(), path: setup.directory, shownPath: "here", contentType: "image/png"))
        #expect(
            try await eventually(seconds: 10) {
                try setup.engine.cache.syncStatus().download?.state == .failed("it is a directory")
            })
        #expect(asked.withLock { $0 } == 0)
    }
}
