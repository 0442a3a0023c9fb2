import ArgumentParser
import ODataCore

/// The `cardealer` command: a terminal browser for OData v2 services.
///
/// Subcommands are added as the pieces they drive land; until the browser
/// exists, running `cardealer` with no arguments prints help instead of
/// pretending to browse.
@main
struct CarDealer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cardealer",
        abstract: "Browse OData v2 services (people → cars → maintenance) in the terminal.",
        discussion: "The interactive browser is not built yet; see README.md for what works today.",
        subcommands: [ServeCommand.self, CacheCommand.self]
    )

    mutating func run() async throws {
        print(Self.helpMessage())
    }
}
