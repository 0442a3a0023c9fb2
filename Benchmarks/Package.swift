// swift-tools-version: 6.0
import PackageDescription

// The benchmark programs, a package of their own on the root package by path (as swift-nio and Hummingbird keep
// theirs): a plain `swift build` of the root builds none of them. `Benchmarks/run.sh` builds this package in release.
let package = Package(
    name: "CarDealerBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "CarDealer", path: ".."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssh", from: "0.15.1"),
    ],
    targets: [
        .executableTarget(
            name: "decode-bench", dependencies: [.product(name: "ODataCore", package: "CarDealer")],
            path: "DecodeBench"),
        .executableTarget(
            name: "metadata-bench", dependencies: [.product(name: "ODataCore", package: "CarDealer")],
            path: "MetadataBench"),
        .executableTarget(
            name: "cache-bench",
            dependencies: ["ODataCore", "EntityCache", "ScreenSeam", "Sync"].map {
                .product(name: $0, package: "CarDealer")
            },
            path: "CacheBench"),
        .executableTarget(
            name: "ingest-bench",
            dependencies: ["ODataCore", "EntityCache", "ScreenSeam", "Sync"].map {
                .product(name: $0, package: "CarDealer")
            },
            path: "IngestBench"),
        .executableTarget(
            name: "write-bench",
            dependencies: [
                "ODataCore", "ODataHTTP", "EntityCache", "ScreenSeam", "Sync", "Session", "Browser", "Terminal",
                "DemoServer",
            ].map { .product(name: $0, package: "CarDealer") },
            path: "WriteBench"),
        .executableTarget(
            name: "ssh-bench",
            dependencies: [
                .product(name: "NIOSSH", package: "swift-nio-ssh"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "SSHBench"),
    ]
)
