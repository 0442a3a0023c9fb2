// swift-tools-version: 6.0
import PackageDescription

let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")

let package = Package(
    name: "CarDealer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cardealer", targets: ["cardealer"]),
        .library(name: "ODataCore", targets: ["ODataCore"]),
        .library(name: "EntityCache", targets: ["EntityCache"]),
        .library(name: "ScreenSeam", targets: ["ScreenSeam"]),
        .library(name: "ODataHTTP", targets: ["ODataHTTP"]),
        .library(name: "Sync", targets: ["Sync"]),
        .library(name: "Session", targets: ["Session"]),
        .library(name: "DemoServer", targets: ["DemoServer"]),
        .library(name: "SSHGateway", targets: ["SSHGateway"]),
        // (for the benchmarks' package, Benchmarks/Package.swift)
        .library(name: "Browser", targets: ["Browser"]),
        .library(name: "Terminal", targets: ["Terminal"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph through async-http-client; named because ODataHTTP imports their modules.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Already in the graph through async-http-client: client certificates and private CAs (TLSConfiguration).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Already in the graph; Session hashes a credential into the cache's file name with its SHA-256, and
        // ODataHTTP makes PKCE's S256 code challenge with it.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The SSH protocol for `cardealer serve-ssh`.
        .package(url: "https://github.com/apple/swift-nio-ssh", from: "0.15.1"),
        // config.toml (toml++ underneath): errors with line and column.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        // Pure OData protocol core, v2 and v4: $metadata, URLs, keys, verbose JSON, the transport protocol. No I/O.
        .target(name: "ODataCore"),
        // The local SQLite cache screens read: flat entities, relations, stored list results.
        .target(
            name: "EntityCache", dependencies: ["ODataCore", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // What a screen is and what it asks the fetcher for: where Browser and Sync meet without importing each other.
        .target(name: "ScreenSeam", dependencies: ["ODataCore"]),
        // The AsyncHTTPClient transport: one origin, limits, redirects, proxies, cookies, credentials.
        .target(
            name: "ODataHTTP",
            dependencies: [
                "ODataCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                // PKCE's S256 challenge.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The background fetcher: request registry, prefetch policy, normaliser, `$metadata` loading. No HTTP of its own.
        .target(name: "Sync", dependencies: ["ODataCore", "EntityCache", "ScreenSeam"]),
        // ncursesw as a system library; shim.h wraps what Swift cannot import.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncursesw5-dev"])]),
        // Async-signal-safe SIGWINCH / SIGINT / SIGTERM / SIGHUP → wake pipe.
        .target(name: "CTermSupport"),
        // Terminal protocol, ncurses and headless drivers, keys, text sanitising, display width.
        .target(name: "Terminal", dependencies: ["CNcurses", "CTermSupport"]),
        // Screens: navigation stack, controllers, chrome. Reads only the cache; never imports Sync.
        .target(
            name: "Browser", dependencies: ["ODataCore", "EntityCache", "ScreenSeam", "Terminal"],
            resources: [.embedInCode("Profile/cardealer.profile.json")]
        ),
        // The built-in CarDealer OData v2 service: schema, data, query engine, routes.
        .target(
            name: "DemoServer",
            dependencies: [
                "ODataCore", "CZlib", grdb, hummingbird,
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // A pseudo-terminal and a child process on it (openpty, fork, login_tty, exec), for the SSH gateway.
        .target(name: "CPtySupport", linkerSettings: [.linkedLibrary("util")]),
        // gzip for the built-in service's answers (the system's zlib).
        .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
        // An append-only log file only its owner reads (the browser's log and the SSH gateway's).
        .target(name: "LogFile"),
        // `cardealer serve-ssh`: an SSH server whose every session is the browser in its own process on its own pty.
        .target(
            name: "SSHGateway",
            dependencies: [
                "CPtySupport", "LogFile",
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // One browsing session built from settings: transport, `$metadata`, cache, fetcher, profile. Shared by the
        // executable and the tests (as Hummingbird's buildApplication is); the terminal is the caller's.
        .target(
            name: "Session",
            dependencies: [
                "ODataCore", "EntityCache", "ScreenSeam", "ODataHTTP", "Sync", "Browser",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Argument parsing, the start-up screen, the terminal loop, the built-in service's commands.
        .executableTarget(
            name: "cardealer",
            dependencies: [
                "ODataCore", "EntityCache", "ODataHTTP", "Session", "Terminal", "Browser", "DemoServer", "SSHGateway",
                "LogFile",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // A tiny program that draws hostile text; driven inside tmux by TerminalTests.
        .executableTarget(name: "TerminalDemo", dependencies: ["Terminal"]),
        .testTarget(name: "ODataCoreTests", dependencies: ["ODataCore"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "EntityCacheTests",
            dependencies: ["ODataCore", "EntityCache", "ScreenSeam", grdb, "CarDealerTestSupport"]),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "ODataCore", "EntityCache", "ScreenSeam", "Sync", "ODataHTTP", "DemoServer", "CarDealerTestSupport",
            ], resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "ODataHTTPTests",
            dependencies: [
                "ODataCore", "ODataHTTP", "CarDealerTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Helpers shared by test targets: a private tmux session, built products, a loopback listener, a scripted
        // transport and clock, one way to make an engine.
        .target(
            name: "CarDealerTestSupport",
            dependencies: ["ODataCore", "ODataHTTP", "EntityCache", "DemoServer", "Sync"],
            path: "Tests/TestSupport"),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal", "CarDealerTestSupport"]),
        // The gateway's own parts (limits, keys, auth) and the built binary behind the real OpenSSH client.
        .testTarget(
            name: "SSHGatewayTests",
            dependencies: [
                "SSHGateway", "Terminal", "CarDealerTestSupport", "ODataCore", "ODataHTTP",
                .product(name: "NIOSSH", package: "swift-nio-ssh"), .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The built cardealer binary in tmux: keys in, capture-pane out.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "CarDealerTestSupport", "Browser", "Sync", "ODataHTTP", "Session", "EntityCache", "ScreenSeam",
                "DemoServer", "ODataCore",
                "Terminal",
            ]
        ),
        // Snapshots/ holds text frames read by path (#filePath), not bundled as resources.
        .testTarget(
            name: "BrowserTests",
            dependencies: ["Browser", "EntityCache", "ScreenSeam", "ODataCore", "Terminal", "CarDealerTestSupport"],
            exclude: ["Snapshots"]
        ),
        .testTarget(
            name: "DemoServerTests",
            dependencies: [
                "DemoServer", "ODataCore", "ODataHTTP", "CarDealerTestSupport", hummingbird,
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Faults, crashes, hostile data, signals and exposure: the reliability suite (issue 7).
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "Browser", "DemoServer", "EntityCache", "ScreenSeam", "ODataCore", "Sync", "ODataHTTP", "Session",
                "Terminal", grdb,
                "CarDealerTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
