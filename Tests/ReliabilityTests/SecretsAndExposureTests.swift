import CarDealerTestSupport
import DemoServer
import EntityCache
import Foundation
import GRDB
import ODataCore
import ODataHTTP
import Testing

@testable import Sync

#if canImport(Glibc)
import Glibc
#endif

/// Credentials, file modes and what the built-in service exposes (issue 7, "secrets and exposure").
@Suite(.serialized)
struct SecretsAndExposureTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o7777
    }

    @Test func credentials_come_from_the_environment_first() throws {
        // Given both a token and a user in the environment
        let environment = [
            "CARDEALER_BEARER_TOKEN": "tok", "CARDEALER_USER": "u", "CARDEALER_PASSWORD": "p",
            "CARDEALER_CREDENTIALS": "/nonexistent",
        ]
        // Then the token wins; without it the user and password make basic auth
        #expect(try Credentials.load(environment: environment).authorization == "Bearer tok")
        #expect(
            try Credentials.load(environment: ["CARDEALER_USER": "u", "CARDEALER_PASSWORD": "p"]).authorization
                == "Basic " + Data("u:p".utf8).base64EncodedString())
        // and with nothing anywhere there are none
        #expect(try Credentials.load(environment: ["CARDEALER_CREDENTIALS": "/nonexistent"]) == Credentials())
    }

    @Test func a_credentials_file_is_used_only_when_its_owner_alone_can_read_it() throws {
        // Given a credentials file readable by everyone
        let directory = try BuiltProducts.temporaryDirectory("reliability-secrets")
        let path = directory + "/credentials"
        try "# test\nuser = alice\npassword = s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        // Then it is refused with the command that fixes it
        #expect {
            try Credentials.load(environment: ["CARDEALER_CREDENTIALS": path])
        } throws: { error in
            String(describing: error).contains("chmod 600") && String(describing: error).contains("644")
        }
        // When it is made private, it is used
        chmod(path, 0o600)
        let credentials = try Credentials.load(environment: ["CARDEALER_CREDENTIALS": path])
        #expect(credentials.user == "alice")
        #expect(credentials.authorization == "Basic " + Data("alice:s3cret".utf8).base64EncodedString())
        // and the XDG location is where it is looked for by default
        #expect(
            Credentials.filePath(environment: ["XDG_CONFIG_HOME": directory]) == directory + "/cardealer/credentials")
    }

    @Test func secrets_never_reach_the_cache_file_or_the_request_log() async throws {
        // Given a fetcher with a token and a password, on the built-in service behind a proxy that fails some requests
        let directory = try BuiltProducts.temporaryDirectory("reliability-secrets")
        let server = try await DemoServer.start(
            DemoServerConfiguration(people: 60, dataPath: directory + "/demo.sqlite"))
        defer { Task { await server.stop() } }
        let proxy = try FaultProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        proxy.setFaultRate(0.3, faults: [.serverError, .unavailable, .malformed, .truncated])
        let secrets = ["tok-7b1f2c9e-SECRET", "pa55-w0rd-SECRET"]
        let root = "http://127.0.0.1:\(proxy.port)/CarDealer.svc/"
        for (index, credentials) in [
            Credentials(authorization: "Bearer " + secrets[0]),
            try Credentials.load(environment: ["CARDEALER_USER": "alice", "CARDEALER_PASSWORD": secrets[1]]),
        ].enumerated() {
            let cachePath = directory + "/cache-\(index).sqlite"
            let cache = try CacheDatabase(path: cachePath)
            let engine = try SyncEngine.forTesting(
                root: root, transport: HTTPClientTransport(timeout: 5, credentials: credentials), model: nil,
                cache: cache, clock: SystemClock()
            ) { $0.retry = RetryPolicy(maxAttempts: 2, baseDelay: 0.001, maxDelay: 0.01) }
            // When it fetches pages and entities, some of which fail
            for offset in stride(from: 0, to: 60, by: 10) {
                let url = root + "Person?$top=10&$skip=\(offset)&$expand=PersonCar"
                let key = ListKey(canonical: "Person")
                _ = await engine.fetch(
                    url, target: .listPage(key, entitySet: "Person", offset: offset, requestedTop: 10))
            }
            #expect(try cache.requestLog().count >= 6)

            // Then no byte of the cache file, its WAL or its request log holds a secret (nor its base64 form)
            for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: cachePath + suffix) {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: cachePath + suffix))
                for secret in secrets + [Data("alice:\(secrets[1])".utf8).base64EncodedString()] {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) found in cache\(suffix)")
                }
                // and the files are the owner's alone
                #expect(
                    Self.mode(cachePath + suffix) == 0o600,
                    "cache\(suffix) has mode \(String(Self.mode(cachePath + suffix), radix: 8))")
            }
            for entry in try cache.requestLog() {
                #expect(!secrets.contains { entry.url.contains($0) || (entry.error ?? "").contains($0) })
            }
        }
    }

    @Test func the_cache_and_the_demo_data_are_private_files() throws {
        // Given a cache in a new directory and generated demo data
        let directory = try BuiltProducts.temporaryDirectory("reliability-secrets")
        let cachePath = directory + "/nested/cache.sqlite"
        let cache = try CacheDatabase(path: cachePath)
        try cache.writeBlocking {
            try $0.appendRequestLog(
                RequestLogEntry(
                    url: "u", status: 200, bytes: 0, duration: 0, outcome: .fetched, startedAt: Date(), attempts: 1))
        }
        let dataPath = directory + "/demo.sqlite"
        let store = try DataStore.open(path: dataPath, people: 5)
        _ = try store.reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Person") }

        // Then every file is 0600 and the cache's directory 0700
        for path in [cachePath, cachePath + "-wal", cachePath + "-shm", dataPath, dataPath + "-wal", dataPath + "-shm"]
        where FileManager.default.fileExists(atPath: path) {
            #expect(Self.mode(path) == 0o600, "\(path) has mode \(String(Self.mode(path), radix: 8))")
        }
        #expect(Self.mode(directory + "/nested") == 0o700)
    }

    @Test func the_built_in_service_listens_on_loopback_unless_told_otherwise() async throws {
        // Given the defaults the demo and `cardealer serve` use
        #expect(DemoServerConfiguration().host == "127.0.0.1")
        let server = try await DemoServer.start(
            DemoServerConfiguration(
                people: 5, dataPath: NSTemporaryDirectory() + "exposure-\(UUID().uuidString).sqlite"))
        defer { Task { await server.stop() } }
        // Then it answers on 127.0.0.1 and is not reachable on any other interface address
        #expect(
            try RawHTTP.exchange(
                host: "127.0.0.1", port: server.port, "GET /CarDealer.svc/ HTTP/1.1\r\nHost: x\r\n\r\n"
            ).hasPrefix("HTTP/1.1 200"))
        for address in RawHTTP.nonLoopbackIPv4Addresses() {
            #expect(throws: (any Error).self, "reachable on \(address)") {
                try RawHTTP.exchange(
                    host: address, port: server.port, "GET /CarDealer.svc/ HTTP/1.1\r\nHost: x\r\n\r\n")
            }
        }
    }

    @Test func oversized_and_abusive_requests_are_refused_with_clear_errors() async throws {
        // Given the built-in service
        let server = try await DemoServer.start(
            DemoServerConfiguration(
                people: 5, dataPath: NSTemporaryDirectory() + "exposure-\(UUID().uuidString).sqlite"))
        defer { Task { await server.stop() } }
        func get(_ target: String, extra: String = "") throws -> String {
            try RawHTTP.exchange(
                host: "127.0.0.1", port: server.port, "GET \(target) HTTP/1.1\r\nHost: x\r\n\(extra)\r\n")
        }
        // Then a URL over 8 KB is a 414 that says so
        let long = try get("/CarDealer.svc/Person?$filter=" + String(repeating: "a", count: 9_000))
        #expect(long.hasPrefix("HTTP/1.1 414") && long.contains("longer than 8 KB"), "\(long.prefix(300))")
        // and a $filter nested hundreds deep is a 400, not a crash
        let nested = try get(
            "/CarDealer.svc/Person?$filter=" + String(repeating: "(", count: 2_000) + "personID%20eq%201"
                + String(repeating: ")", count: 2_000))
        #expect(nested.hasPrefix("HTTP/1.1 400") && nested.contains("nested too deeply"), "\(nested.prefix(300))")
        // and an $expand a hundred levels deep is refused
        let expand = try get(
            "/CarDealer.svc/Person(1)?$expand=" + Array(repeating: "PersonCar/Car", count: 100).joined(separator: "/"))
        #expect(expand.hasPrefix("HTTP/1.1 400"), "\(expand.prefix(300))")
        // and a create with a body over 1 MiB is refused as too large, before anything is made
        let post = try RawHTTP.exchange(
            host: "127.0.0.1", port: server.port,
            "POST /CarDealer.svc/Person HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"
                + String(repeating: "x", count: 2_000_000))
        #expect(post.hasPrefix("HTTP/1.1 413") && post.contains("larger than 1 MiB"), "\(post.prefix(300))")
        // and a change with a body over 1 MiB is refused as too large, before anything is read into the data
        let merge = try RawHTTP.exchange(
            host: "127.0.0.1", port: server.port,
            "MERGE /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n"
                + String(repeating: "x", count: 2_000_000))
        #expect(merge.hasPrefix("HTTP/1.1 413"), "\(merge.prefix(300))")
        // and a head of 200 KB of headers gets an error status, not a hang
        let headers =
            (try? get(
                "/CarDealer.svc/",
                extra: (0..<2_000).map { "X-Junk-\($0): \(String(repeating: "j", count: 100))\r\n" }.joined())) ?? ""
        #expect(!headers.hasPrefix("HTTP/1.1 200"), "\(headers.prefix(300))")
    }
}
