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
        .executableTarget(
            name: "cardealer",
            dependencies: [
                "ODataCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "ODataCoreTests", dependencies: ["ODataCore"], resources: [.copy("Fixtures")]),
        // ncursesw as a system library; shim.h wraps what Swift cannot import.
        .systemLibrary(name: "CNcurses", providers: [.apt(["libncursesw5-dev"])]),
        // Async-signal-safe SIGWINCH / SIGINT / SIGTERM / SIGHUP → wake pipe.
        .target(name: "CTermSupport"),
        // Terminal protocol, ncurses and headless drivers, keys, text sanitising, display width.
        .target(name: "Terminal", dependencies: ["CNcurses", "CTermSupport"]),
        // A tiny program that draws hostile text; driven inside tmux by TerminalTests.
        .executableTarget(name: "TerminalDemo", dependencies: ["Terminal"]),
        .testTarget(name: "TerminalTests", dependencies: ["Terminal"]),
    ],
    swiftLanguageModes: [.v6]
)
