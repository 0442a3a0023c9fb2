// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "CarDealer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "cardealer", targets: ["cardealer"]),
        .library(name: "ODataCore", targets: ["ODataCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // Pure OData v2 protocol core: $metadata, URLs, keys, verbose JSON. No I/O.
        .target(name: "ODataCore"),
        // Screens: navigation stack, controllers, chrome. Reads only the cache; never imports Sync.
        .target(name: "Browser", dependencies: ["ODataCore"]),
        .executableTarget(
            name: "cardealer",
            dependencies: [
                "ODataCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "decode-bench", dependencies: ["ODataCore"], path: "Benchmarks/DecodeBench"),
        .testTarget(name: "ODataCoreTests", dependencies: ["ODataCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BrowserTests", dependencies: ["Browser"]),
    ],
    swiftLanguageModes: [.v6]
)
