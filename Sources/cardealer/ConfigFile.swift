import ArgumentParser
import Browser
import Foundation
import ODataHTTP
import TOMLKit
import Terminal

/// `$XDG_CONFIG_HOME/cardealer/config.toml`: the settings a person keeps between runs.
///
/// A file that cannot be used is refused at start with its path, line and reason: never a crash, never
/// silently ignored (an unknown setting is refused too, so that a typo does not pass for a choice).
struct ConfigFile: Equatable {
    var theme: Theme?
    var mouse: Bool?
    var prefetch: Bool?
    var pageSize: Int?
    /// Writes sent together in one `$batch`; 1 sends each alone.
    var batchSize: Int?
    var service: String?
    var profile: String?
    /// Annotation documents (files or URLs) for `service`.
    var annotations: [String]?
    /// Action name → the keys bound to it.
    var keys: [String: [String]] = [:]
    /// Default keys that do nothing (`unbind = ["q"]` under `[keys]`), unless bound to an action here.
    var unbind: [String] = []
    /// How to sign in to `service` with OAuth 2.0 (`[sign-in]`): option name (`client-id`) → value. No secret.
    var signIn: [String: String] = [:]

    /// `$XDG_CONFIG_HOME/cardealer/config.toml`, or `~/.config/cardealer/config.toml`; `CARDEALER_CONFIG` wins.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let file = environment["CARDEALER_CONFIG"], !file.isEmpty { return file }
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/cardealer/config.toml" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/cardealer/config.toml"
    }

    /// The file at `path`, or the defaults when there is none.
    @MainActor
    static func load(path: String) throws -> ConfigFile {
        guard FileManager.default.fileExists(atPath: path) else { return ConfigFile() }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError("\(path): cannot be read as UTF-8 text.")
        }
        return try parse(text, source: path)
    }

    static let settings = [
        "theme", "mouse", "prefetch", "page-size", "batch-size", "service", "profile", "annotations", "keys",
        "sign-in",
    ]

    /// What `[sign-in]` may say: `browse`'s options of the same names, for the config's service.
    static let signInSettings = [
        "client-id", "token-url", "device-url", "authorize-url", "issuer", "grant", "scope", "client-secret-file",
    ]

    /// Parses and checks the text of a config file.
    @MainActor
    static func parse(_ text: String, source: String) throws -> ConfigFile {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(
                "\(source):\(error.source.begin.line):\(error.source.begin.column): \(error.description)")
        }
        func line(of key: String) -> String {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard
                let index = lines.firstIndex(where: {
                    let trimmed = $0.trimmingCharacters(in: .whitespaces)
                    return trimmed.hasPrefix(key + " ") || trimmed.hasPrefix(key + "=") || trimmed == "[\(key)]"
                })
            else { return "\(source)" }
            return "\(source):\(index + 1)"
        }
        var config = ConfigFile()
        for key in table.keys {
            guard settings.contains(key) else {
                throw ConfigError(
                    "\(line(of: key)): unknown setting '\(key)'; the settings are "
                        + settings.joined(separator: ", ") + ".")
            }
        }
        func string(_ key: String) throws -> String? {
            guard let value = table[key] else { return nil }
            guard value.type == .string, let text = value.tomlValue.string else {
                throw ConfigError("\(line(of: key)): '\(key)' must be a string in quotes.")
            }
            return text
        }
        func bool(_ key: String) throws -> Bool? {
            guard let value = table[key] else { return nil }
            guard let flag = value.bool else { throw ConfigError("\(line(of: key)): '\(key)' must be true or false.") }
            return flag
        }
        if let name = try string("theme") {
            guard let theme = Theme(rawValue: name) else {
                throw ConfigError(
                    "\(line(of: "theme")): no theme '\(name)'; the themes are "
                        + Theme.allCases.map(\.rawValue).joined(separator: ", ") + ".")
            }
            config.theme = theme
        }
        config.mouse = try bool("mouse")
        config.prefetch = try bool("prefetch")
        if let value = table["page-size"] {
            guard let size = value.int, (1...1000).contains(size) else {
                throw ConfigError("\(line(of: "page-size")): 'page-size' must be a whole number from 1 to 1000.")
            }
            config.pageSize = size
        }
        if let value = table["batch-size"] {
            guard let size = value.int, (1...1000).contains(size) else {
                throw ConfigError("\(line(of: "batch-size")): 'batch-size' must be a whole number from 1 to 1000.")
            }
            config.batchSize = size
        }
        if let service = try string("service") {
            guard let url = URL(string: service), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil, url.user == nil, url.password == nil
            else {
                throw ConfigError(
                    "\(line(of: "service")): 'service' must be an http(s) service root without credentials.")
            }
            config.service = service
        }
        config.profile = try string("profile")
        if let value = table["annotations"] {
            let names = value.tomlValue.string.map { [$0] } ?? value.array?.compactMap { $0.tomlValue.string }
            guard let names, names.count == (value.array?.count ?? 1), names.allSatisfy({ !$0.isEmpty }) else {
                throw ConfigError(
                    "\(line(of: "annotations")): 'annotations' must be a file or URL in quotes, or a list of them.")
            }
            config.annotations = names
        }
        if let value = table["keys"] {
            guard let keys = value.table else {
                throw ConfigError("\(line(of: "keys")): 'keys' must be a table: [keys] then action = \"key\".")
            }
            let actions = KeyBindings.defaults
            for action in keys.keys {
                guard action == "unbind" || actions[action] != nil else {
                    throw ConfigError(
                        "\(line(of: action)): no action '\(action)' to bind; the actions are "
                            + actions.keys.sorted().joined(separator: ", ") + " (and unbind).")
                }
                // One key or a list of them.
                let value = keys[action]
                let names = value?.tomlValue.string.map { [$0] } ?? value?.array?.compactMap { $0.tomlValue.string }
                guard let names, names.count == (value?.array?.count ?? 1),
                    names.allSatisfy({ KeyBindings.key(named: $0) != nil })
                else {
                    throw ConfigError(
                        "\(line(of: action)): '\(action)' must be a key or a list of keys: one character (\"x\"), "
                            + "\"ctrl-LETTER\", \"f1\"…\"f12\", or a named key (\"down\", \"pagedown\", \"enter\", \"esc\", "
                            + "\"space\", \"tab\"…).")
                }
                if action == "unbind" { config.unbind = names } else { config.keys[action] = names }
            }
        }
        if let value = table["sign-in"] {
            guard let signIn = value.table else {
                throw ConfigError(
                    "\(line(of: "sign-in")): 'sign-in' must be a table: [sign-in] then client-id = \"…\".")
            }
            for key in signIn.keys {
                guard signInSettings.contains(key) else {
                    let secret = key.lowercased().contains("secret") || key.lowercased().contains("password")
                    throw ConfigError(
                        "\(line(of: key)): "
                            + (secret
                                ? "no secret is kept in the config file; set CARDEALER_CLIENT_SECRET or name a 0600 "
                                    + "file with client-secret-file."
                                : "unknown sign-in setting '\(key)'; they are "
                                    + signInSettings.joined(separator: ", ") + "."))
                }
                guard let text = signIn[key]?.tomlValue.string, !text.isEmpty else {
                    throw ConfigError("\(line(of: key)): '\(key)' must be a string in quotes.")
                }
                if key == "grant", SignInSettings.Grant(rawValue: text) == nil {
                    throw ConfigError(
                        "\(line(of: key)): no grant '\(text)'; the grants are "
                            + SignInSettings.Grant.allCases.map(\.rawValue).joined(separator: ", ") + ".")
                }
                config.signIn[key] = text
            }
        }
        return config
    }

    /// Bound keys → the default key of their action, and the unbound defaults, for ``BrowserApp/bind(_:)``.
    @MainActor
    var keymap: Keymap {
        let defaults = KeyBindings.defaults
        var map = Keymap()
        for (action, names) in keys {
            guard let target = defaults[action] else { continue }
            for key in names.compactMap(KeyBindings.key(named:)) where key != target { map.bound[key] = target }
        }
        map.unbound = Set(unbind.compactMap(KeyBindings.key(named:)))
        return map
    }

    /// What `cardealer config default` prints: every setting, commented out at its default.
    static let defaultText = """
        # cardealer's settings (cardealer config path shows where this file goes; cardealer config check checks it).
        # Command-line options win over these.

        # Colours: dark, light, high-contrast or monochrome. NO_COLOR in the environment always means monochrome.
        # theme = "dark"

        # Clicks and the wheel; false leaves the mouse to the terminal's own selection.
        # mouse = true

        # Fetch in the background what the next screen will show; false fetches only what is on screen.
        # prefetch = true

        # Entities asked for per request.
        # page-size = 50

        # Changes sent together in one $batch where the service takes one (each still applied on its own);
        # 1 sends each change in a request of its own.
        # batch-size = 100

        # The service `cardealer browse` opens when given no URL, and the display profile it uses.
        # service = "https://host/sap/opu/odata/sap/API_BUSINESS_PARTNER/"
        # profile = "/path/to/profile.json"
        # Annotation documents that describe that service's screens (files or URLs), after the service's own.
        # annotations = ["/path/to/annotations.xml"]

        # Keys: action = "key" or ["key", "key"]: one character, "ctrl-LETTER", "f1"…"f12", or a named key
        # ("up", "down", "pagedown", "home", "enter", "esc", "space", "tab"…). The action's own key keeps working
        # unless it is unbound: unbind = ["q"] makes q do nothing (a key bound to an action here still does that).
        [keys]
        # quit = "q"
        # help = "?"
        # filter = "/"
        # command = ":"
        # chart = "c"
        # sort = "s"
        # outbox = "o"
        # log = "i"
        # refresh = "r"
        # down = ["down", "n"]
        # up = "up"
        # page-down = "pagedown"
        # page-up = "pageup"
        # top = "home"
        # bottom = "end"
        # open = "enter"
        # back = "esc"
        # unbind = []

        # Signing in to `service` with OAuth 2.0 (the options of the same names win). No secret goes here: the
        # client secret comes from CARDEALER_CLIENT_SECRET or the file client-secret-file names (mode 0600).
        # [sign-in]
        # client-id = "my-client"
        # token-url = "https://host/oauth/token"
        # issuer = "https://login.example.com/tenant/v2.0"
        # device-url = "https://host/oauth/devicecode"
        # authorize-url = "https://host/oauth/authorize"
        # grant = "client-credentials"   # or "device", or "code"
        # scope = "API_BUSINESS_PARTNER_0001"
        # client-secret-file = "/path/to/secret"

        """
}

/// A config file that cannot be used, in one line: path, line and reason.
struct ConfigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `cardealer config path|check|default`.
struct ConfigCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Where the config file is, whether it is good, and what it can say.",
        subcommands: [Path.self, Check.self, Default.self])

    struct Path: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the config file's path.")
        func run() { print(ConfigFile.path()) }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read the config file and say what is wrong with it, if anything.")
        func run() async throws {
            let path = ConfigFile.path()
            guard FileManager.default.fileExists(atPath: path) else {
                print("No config file at \(path): the defaults apply.")
                return
            }
            do {
                _ = try await MainActor.run { try ConfigFile.load(path: path) }
                print("\(path) is good.")
            } catch {
                FileHandle.standardError.write(Data("\(error)\n".utf8))
                throw ExitCode(1)
            }
        }
    }

    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a config file with every setting.")
        func run() { print(ConfigFile.defaultText, terminator: "") }
    }
}
