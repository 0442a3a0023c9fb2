import ArgumentParser

/// The `cardealer` command: a terminal browser for OData v2 and v4 services.
///
/// With no subcommand it runs ``DemoCommand``: the built-in CarDealer service
/// in-process and the browser on it.
@main
struct CarDealer: AsyncParsableCommand {
    /// What `--version` prints. Raised by hand when a release is cut.
    static let version = "0.4.0"

    static let configuration = CommandConfiguration(
        commandName: "cardealer",
        abstract: "Browse OData v2 and v4 services (people, their cars, each car's maintenance) in the terminal.",
        discussion: """
            With no subcommand, starts the built-in CarDealer service on 127.0.0.1 and opens the browser on it.
            Keys: arrows or j/k move, Enter opens, Esc goes back, / filters, : runs a command, c charts, \
            i shows the request log, ? help, q quits.
            Credentials for `browse` come from CARDEALER_BEARER_TOKEN or CARDEALER_USER/CARDEALER_PASSWORD, else
            from ~/.config/cardealer/credentials (or CARDEALER_CREDENTIALS), which must have mode 0600; with
            --client-id and --token-url (or --issuer), from OAuth 2.0: `cardealer login URL` signs in, and the
            token is renewed by itself while browsing.
            Behind a proxy: http_proxy, https_proxy, all_proxy and no_proxy, read as curl reads them.
            """,
        version: version,
        subcommands: [
            DemoCommand.self, BrowseCommand.self, ServeCommand.self, ServeSSHCommand.self, ExportCommand.self,
            CacheCommand.self, ConfigCommand.self, LoginCommand.self, LogoutCommand.self, WhoamiCommand.self,
            SSHSessionCommand.self,
        ],
        defaultSubcommand: DemoCommand.self
    )
}
