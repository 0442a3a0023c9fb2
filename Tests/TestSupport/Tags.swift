import Testing

extension Tag {
    /// The test starts the built `cardealer` binary, tmux, a pty or the OpenSSH client. Such tests take most of the
    /// suite's time; the README names the command that runs the others alone (the fast layer).
    @Tag public static var endToEnd: Self
}
