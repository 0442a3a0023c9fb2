// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CarDealer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cardealer", targets: ["cardealer"]),
        .library(name: "ODataCore", targets: ["ODataCore"]),
        .library(name: "EntityCache", targets: ["EntityCache"]),
        .library(name: "Sync", targets: ["Sync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Pure OData v2 protocol core: $metadata, URLs, keys, verbose JSON. No I/O.
        .target(name: "ODataCore"),
        // The local SQLite cache screens read: flat entities, relations, stored list results.
        .target(name: "EntityCache", dependencies: ["ODataCore", .product(name: "GRDB", package: "GRDB.swift")]),
        // The background fetcher: transport, request registry, prefetch policy, normaliser.
        .target(name: "Sync", dependencies: ["ODataCore", "EntityCache"]),
        // Ingest and window-read figures; run in release.
        .executableTarget(name: "cache-bench", dependencies: ["ODataCore", "EntityCache", "Sync"]),
        .executableTarget(
            name: "cardealer",
            dependencies: [
                "ODataCore",
                "EntityCache",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "ODataCoreTests", dependencies: ["ODataCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "EntityCacheTests", dependencies: ["ODataCore", "EntityCache"]),
        .testTarget(
            name: "SyncTests", dependencies: ["ODataCore", "EntityCache", "Sync"], resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
