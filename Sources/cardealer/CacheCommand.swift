import ArgumentParser
import EntityCache
import Foundation
import ODataHTTP
import Session

/// `cardealer cache path|stats|clear [URL]`: where a service's cache lives, what is in it, and removing it.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show or clear the local cache of a service.",
        subcommands: [Path.self, Stats.self, Clear.self]
    )

    /// The service and user a cache belongs to.
    struct Target: ParsableArguments {
        @Argument(help: "The service root URL (default: the built-in demo).")
        var url: String?

        @Option(help: "The user the cache belongs to (default: from the credentials, as browsing does).")
        var user: String?

        @Option(help: "Without a URL: the demo's --people (each demo size has its own cache).")
        var people: Int = 200

        @Flag(help: "Without a URL: the hostile demo's cache (cardealer --hostile).")
        var hostile = false

        @Option(help: "The cache directory browsing was given with --cache-directory.")
        var cacheDirectory: String?

        var location: CacheLocation {
            get throws {
                // The same identity, user and directory as browsing works out.
                let owner = try user ?? CacheIdentity.user(Credentials.load())
                return CacheIdentity.location(
                    identity: url ?? CacheIdentity.demo(people: people, hostile: hostile), user: owner,
                    cacheDirectory: cacheDirectory
                )
            }
        }
    }

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the cache file's path.")
        @OptionGroup var target: Target

        func run() throws {
            print(try target.location.path)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print what the cache holds.")
        @OptionGroup var target: Target

        func run() throws {
            let path = try target.location.path
            guard FileManager.default.fileExists(atPath: path) else {
                print("No cache yet at \(path).")
                return
            }
            let stats = try CacheDatabase(path: path).stats()
            let formatter = ISO8601DateFormatter()
            print(
                """
                path:        \(path)
                size:        \(stats.fileBytes) bytes
                entities:    \(stats.entities)
                relations:   \(stats.relations)
                lists:       \(stats.lists) (\(stats.listRows) rows)
                requests:    \(stats.requestLogEntries) logged
                oldest data: \(stats.oldestFetch.map(formatter.string(from:)) ?? "-")
                newest data: \(stats.newestFetch.map(formatter.string(from:)) ?? "-")
                """)
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete the cache file.")
        @OptionGroup var target: Target

        func run() throws {
            let path = try target.location.path
            print(try CacheDatabase.removeFiles(at: path) ? "Removed \(path)." : "No cache at \(path).")
        }
    }
}
