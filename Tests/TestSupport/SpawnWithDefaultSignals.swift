import Foundation

/// Starts `arguments[0]` with standard input from /dev/null and standard output and error to files (or
/// /dev/null), its signals back to their defaults: the test runner blocks and ignores signals, and a child (tmux,
/// ssh, the built binary) must not inherit that. Returns the child's pid; the caller waits for it.
public func spawnWithDefaultSignals(
    _ arguments: [String], environment: [String: String]? = nil, output: String = "/dev/null",
    error: String = "/dev/null", searchPath: Bool = false
) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, error, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    var allSignals = sigset_t()
    sigemptyset(&noSignals)
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let status: Int32
    if let environment {
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        status =
            searchPath
            ? posix_spawnp(&pid, argv[0]!, &actions, &attributes, argv, envp)
            : posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, envp)
    } else {
        status =
            searchPath
            ? posix_spawnp(&pid, argv[0]!, &actions, &attributes, argv, environ)
            : posix_spawn(&pid, argv[0]!, &actions, &attributes, argv, environ)
    }
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
    return pid
}
