import CarDealerTestSupport
import Foundation
import Testing

let sshClient = ["/usr/bin/ssh", "/usr/local/bin/ssh"].first { FileManager.default.isExecutableFile(atPath: $0) }

/// The machine's architecture (`uname -m`).
let machine: String = {
    var name = utsname()
    uname(&name)
    return withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}()

/// `cardealer serve-ssh` on 127.0.0.1 in a private directory, started with posix_spawn (standard output to a file).
final class ServedGateway: @unchecked Sendable {
    let pid: pid_t
    let directory: String
    let port: Int
    let output: String

    /// Starts one on a thread of its own (its start is waited for by polling a file).
    static func start(
        _ arguments: [String], directory: String? = nil, environment: [String: String] = [:]
    )
        async throws -> ServedGateway
    {
        try await offThePool { try ServedGateway(arguments, directory: directory, environment: environment) }
    }

    init(_ arguments: [String], directory: String? = nil, environment: [String: String] = [:]) throws {
        let binary = try #require(BuiltProducts.executable("cardealer"), "cardealer is not built (swift build first)")
        let directory = try directory ?? BuiltProducts.temporaryDirectory("cardealer-ssh")
        self.directory = directory
        var variables = [
            "HOME": directory, "XDG_DATA_HOME": directory + "/data", "XDG_STATE_HOME": directory + "/state",
            "PATH": "/usr/bin:/bin", "TMPDIR": directory,
        ]
        variables.merge(environment) { $1 }
        let outputPath = directory + "/serve-\(UInt32.random(in: 0...UInt32.max)).out"
        let pid = try spawnWithDefaultSignals(
            [binary, "serve-ssh", "--port", "0", "--people", "20", "--quiet"] + arguments, environment: variables,
            output: outputPath, error: outputPath + ".err")
        self.pid = pid
        // The first line names the port; the fourth comes last.
        let deadline = ContinuousClock.now + .seconds(60)
        var text = ""
        while !text.contains("Auth: "), ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let error = (try? String(contentsOfFile: outputPath + ".err", encoding: .utf8)) ?? ""
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "serve-ssh exited: \(error)"])
            }
            usleep(20_000)
            text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        }
        output = text
        guard let range = text.range(of: #"ssh://127\.0\.0\.1:(\d+)"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":").last ?? "")
        else {
            kill(pid, SIGKILL)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "no port in: \(text)"])
        }
        self.port = port
    }

    /// SIGTERM, then SIGKILL if it has not gone in 5 s; reaped either way.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(5)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(10_000)
        }
    }

    func removeDirectory() { try? FileManager.default.removeItem(atPath: directory) }

    /// The gateway's log.
    var log: String {
        (try? String(contentsOfFile: directory + "/state/cardealer/serve-ssh.log", encoding: .utf8)) ?? ""
    }

    /// Processes whose parent is the gateway, zombies included.
    var children: [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let child = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // "pid (comm) state ppid …"
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// `ssh` with no config, no host-key prompts, and the options given.
    func ssh(_ options: [String], user: String = "demo") -> [String] {
        [
            sshClient ?? "ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o",
            "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=20", "-p", "\(port)",
        ] + options + ["\(user)@127.0.0.1"]
    }

    func sshLine(_ options: [String] = [], user: String = "demo") -> String {
        ssh(options, user: user).map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
    }
}

/// The built binary's SSH server, with the real OpenSSH client: sessions in tmux, refusals, auth, limits, keys.
@Suite(
    .tags(.endToEnd),
    .serialized,
    .enabled(if: TmuxSession.executable != nil && sshClient != nil, "tmux or ssh is not installed; skipping")
)
struct ServeSSHTests {
    /// A tmux pane running `ssh -t` to the gateway.
    func connect(_ gateway: ServedGateway, columns: Int = 90, rows: Int = 26) throws -> TmuxSession {
        let tmux = try TmuxSession(columns: columns, rows: rows)
        try tmux.typeLine(gateway.sshLine(["-t"]) + "; echo EXIT=$?")
        return tmux
    }

    /// Waits for the demo's people list, its cursor on the first of 20.
    func expectPeople(_ tmux: TmuxSession, _ what: String = "the people list") async throws {
        try await expect(tmux, what) { $0.contains("Customer since") && $0.contains("1 of 20") }
    }

    func expect(
        _ tmux: TmuxSession, _ what: String, timeout: Duration = .seconds(30), _ condition: (String) -> Bool
    ) async throws {
        let result = try await tmux.waitFor(timeout: timeout, condition)
        #expect(result.matched, "never saw \(what); the screen was:\n\(result.screen)")
    }

    @Test func a_session_browses_the_demo_drills_resizes_and_quits_cleanly() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let tmux = try connect(gateway)
        defer { tmux.kill() }
        try await expect(tmux, "the people list over SSH") {
            $0.contains("Customer since") && $0.contains("● online") && $0.contains("1 of 20")
        }
        try tmux.sendKeys("Enter")
        try await expect(tmux, "the first person's cars") { $0.contains("People › ") && $0.contains("Cars") }
        try tmux.sendKeys("Escape")
        try await expect(tmux, "the people again") { $0.contains("Customer since") && !$0.contains("›") }

        // A window change reaches the browser through the pty
        try tmux.run("resize-window", "-t", tmux.target, "-x", "50", "-y", "14")
        try await expect(tmux, "the list redrawn at 50 columns") { screen in
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            return lines.contains { $0.hasPrefix("● online") && $0.hasSuffix("? help") && $0.count <= 50 }
        }

        try tmux.sendKeys("q")
        try await expect(tmux, "the client back at the shell with status 0") { $0.contains("EXIT=0") }
        #expect(try await eventually { gateway.children.isEmpty }, "a session's process outlived it")
        #expect(
            try await eventually { gateway.log.contains("session 1 ended (quit, status 0): user demo") },
            "\(gateway.log)")
        #expect(gateway.log.contains("client SSH-2.0-OpenSSH"))
        #expect(gateway.log.contains(#/\d+ B in, \d+ B out in \d+ frames/#))
    }

    /// The autogroup line of a process (`/autogroup-N nice K`): Linux schedules each such group as one, whatever
    /// the nice values of the threads inside.
    static func autogroup(_ pid: pid_t) -> String? {
        try? String(contentsOfFile: "/proc/\(pid)/autogroup", encoding: .utf8)
    }

    @Test func a_sessions_browser_shares_the_gateways_scheduling_group_and_quits_on_ctrl_c() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let tmux = try connect(gateway)
        defer { tmux.kill() }
        try await expectPeople(tmux, "the people list over SSH")
        let browser = try #require(gateway.children.first)
        // A process group of its own, in the gateway's session: a session of its own would be a scheduling group
        // of its own, and its fetcher's work (at nice 10 inside it) would weigh as much as anyone's keypress.
        #expect(getpgid(browser) == browser)
        #expect(getsid(browser) == getsid(gateway.pid))
        if let group = Self.autogroup(gateway.pid) {
            #expect(Self.autogroup(browser) == group)
        }
        // Its terminal is not its controlling terminal, so Ctrl-C is read as a key, and quits
        try tmux.sendKeys("C-c")
        try await expect(tmux, "the client back at the shell with status 0") { $0.contains("EXIT=0") }
        #expect(try await eventually { gateway.children.isEmpty }, "a session's process outlived it")
        #expect(try await eventually { gateway.log.contains("session 1 ended (quit, status 0)") }, "\(gateway.log)")
    }

    @Test func two_sessions_at_once_do_not_see_each_other() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let first = try connect(gateway)
        defer { first.kill() }
        let second = try connect(gateway)
        defer { second.kill() }
        for tmux in [first, second] {
            try await expectPeople(tmux)
        }
        // The first moves down three rows and opens that person; the second stays on the first row of People
        try first.sendKeys("Down", "Down", "Down")
        try await expect(first, "the cursor on the fourth row") { $0.contains("4 of 20") }
        try first.sendKeys("Enter")
        try await expect(first, "a person's cars") { $0.contains("People › ") }
        try await Task.sleep(for: .milliseconds(300))
        let other = try second.capture()
        #expect(other.contains("1 of 20") && !other.contains("People › "), "\(other)")
        #expect(gateway.children.count == 2)
        try first.sendKeys("q")
        try second.sendKeys("q")
        try await expect(first, "the first client's end") { $0.contains("EXIT=0") }
        try await expect(second, "the second client's end") { $0.contains("EXIT=0") }
    }

    @Test func a_client_killed_mid_session_leaves_no_process_behind() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let tmux = try connect(gateway)
        defer { tmux.kill() }
        try await expectPeople(tmux)
        let browsers = gateway.children
        #expect(browsers.count == 1)
        // SIGKILL the ssh client: the connection drops without a goodbye
        let shell = try tmux.display("#{pane_pid}")
        let clients = try await runProgram(["/usr/bin/pkill", "-KILL", "-P", shell, "ssh"])
        #expect(clients.status == 0, "no ssh client under the pane's shell \(shell)")
        #expect(
            try await eventually { gateway.children.isEmpty },
            "the session's process (\(browsers)) is still there: \(gateway.children)")
        #expect(try await eventually { gateway.log.contains("ended (the client left") }, "\(gateway.log)")
        for pid in browsers { #expect(kill(pid, 0) != 0, "process \(pid) is still alive") }
    }

    @Test func a_server_killed_outright_leaves_session_directories_that_the_next_one_removes() async throws {
        // Given a session on a gateway, its private directory in the gateway's temporary directory
        let first = try await ServedGateway.start([])
        defer { first.removeDirectory() }
        let tmux = try connect(first)
        defer { tmux.kill() }
        try await expectPeople(tmux)
        let sessions = {
            ((try? FileManager.default.contentsOfDirectory(atPath: first.directory)) ?? [])
                .filter { $0.hasPrefix("cardealer-ssh-") }
        }
        let left = sessions()
        #expect(left.count == 2 && left.contains { $0.hasSuffix(".lock") }, "\(left)")
        let browsers = first.children

        // When that gateway is killed outright (no chance to clean up), and another starts on the same machine
        kill(first.pid, SIGKILL)
        var status: Int32 = 0
        waitpid(first.pid, &status, 0)
        // (its session's browser sees its terminal hang up and goes too)
        #expect(try await eventually { browsers.allSatisfy { kill($0, 0) != 0 } }, "\(browsers) still running")
        #expect(sessions() == left)
        let second = try await ServedGateway.start([], directory: first.directory)
        defer { second.stop() }

        // Then the dead server's session directory and lock are gone (the new server holds a lock of its own), and
        // the log says so
        let now = sessions()
        #expect(now.count == 1 && now.first?.hasSuffix(".lock") == true && !left.contains(now[0]), "\(now)")
        #expect(try await eventually { second.log.contains("removed 1 session directories left by a server") })
    }

    /// Whether one of a process's threads is blocked in the system call numbered `call` (`/proc/…/syscall`).
    static func isBlocked(_ pid: pid_t, in call: String) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/syscall", encoding: .utf8)
            return text?.split(separator: " ").first.map(String.init) == call
        }
    }

    /// A client that stops reading (its output into a pipe nobody reads) while its browser keeps drawing: the
    /// SSH window fills, the gateway stops reading that session's pty and its browser blocks writing to it; the
    /// gateway and another session go on as if nothing happened, and the stuck one still ends cleanly.
    @Test(.enabled(if: ["x86_64", "aarch64"].contains(machine), "the write system call's number is not known here"))
    func a_client_that_stops_reading_holds_up_only_its_own_session() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let stuck = try TmuxSession(columns: 200, rows: 60)
        defer { stuck.kill() }
        try stuck.typeLine(gateway.sshLine(["-t"]) + " | sleep 600")
        #expect(try await eventually(seconds: 30) { gateway.children.count == 1 })
        let browser = try #require(gateway.children.first)
        // Help and back, over and over (a moment apart, so that each is a frame): whole screens nobody reads
        let write = machine == "x86_64" ? "1" : "64"
        var presses = 0
        // (blocked, and still a moment later: a write sampled on its way is not one the pipe holds up; a full CI run
        // once took one for the other)
        func blockedForGood() async throws -> Bool {
            guard Self.isBlocked(browser, in: write) else { return false }
            try await Task.sleep(for: .milliseconds(200))
            return Self.isBlocked(browser, in: write)
        }
        while try await !blockedForGood(), presses < 3000 {
            try stuck.sendKeys("?")
            try await Task.sleep(for: .milliseconds(3))
            try stuck.sendKeys("h")
            try await Task.sleep(for: .milliseconds(3))
            presses += 1
        }
        // (blocked for good: still in write a moment later)
        try await Task.sleep(for: .milliseconds(500))
        #expect(Self.isBlocked(browser, in: write), "the browser never blocked writing (\(presses) presses)")
        // Another session is served as usual meanwhile
        let other = try connect(gateway)
        defer { other.kill() }
        try await expectPeople(other, "the people list beside a stuck session")
        try other.sendKeys("Enter")
        try await expect(other, "a person's cars") { $0.contains("People › ") && $0.contains("Cars") }
        try other.sendKeys("q")
        try await expect(other, "the other client's end") { $0.contains("EXIT=0") }
        // The stuck client goes: its browser goes too, blocked write and all
        try stuck.sendKeys("C-c")
        let shell = try stuck.display("#{pane_pid}")
        _ = try await runProgram(["/usr/bin/pkill", "-KILL", "-P", shell, "ssh"])
        #expect(try await eventually { gateway.children.isEmpty }, "left behind: \(gateway.children)")
        #expect(kill(browser, 0) != 0)
    }

    @Test func commands_subsystems_forwarding_and_sessions_without_a_terminal_are_refused() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let command = try await runProgram(gateway.ssh([]) + ["cat", "/etc/passwd"])
        #expect(command.status == 1)
        #expect(command.error.contains("runs no commands"), "\(command.error)")
        #expect(!command.output.contains("root:"))

        let subsystem = try await runProgram(gateway.ssh(["-s"]) + ["sftp"])
        #expect(subsystem.status != 0 && subsystem.output.isEmpty, "\(subsystem)")

        let local = try await runProgram(gateway.ssh(["-W", "127.0.0.1:\(gateway.port)"]))
        #expect(local.status != 0, "\(local)")
        let remote = try await runProgram(gateway.ssh(["-N", "-o", "ExitOnForwardFailure=yes", "-R", "0:127.0.0.1:9"]))
        #expect(remote.status != 0 && remote.error.contains("forwarding failed"), "\(remote)")

        let noTerminal = try await runProgram(gateway.ssh(["-T"]))
        #expect(noTerminal.status == 1)
        #expect(noTerminal.error.contains("needs a terminal: connect with ssh -t"), "\(noTerminal.error)")

        let log = gateway.log
        #expect(log.contains("refused to run a command"), "\(log)")
        #expect(log.contains("refused the subsystem sftp"))
        #expect(log.contains("refused a port forward to 127.0.0.1"))
        #expect(log.contains("refused a remote port forward"))
        // Nothing was run: no session's process was ever started
        #expect(!log.contains("started:"))
    }

    @Test func the_session_cap_turns_the_next_one_away_with_a_sentence() async throws {
        let gateway = try await ServedGateway.start(["--max-sessions", "1"])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        let tmux = try connect(gateway)
        defer { tmux.kill() }
        try await expectPeople(tmux)
        let turnedAway = try await runProgram(gateway.ssh(["-tt"]))
        #expect(turnedAway.status == 1)
        #expect(
            (turnedAway.output + turnedAway.error).contains("The demo is full: all 1 sessions are taken"),
            "\(turnedAway)")
        #expect(gateway.children.count == 1)
        // Once the first leaves, the slot is free again
        try tmux.sendKeys("q")
        try await expect(tmux, "the first client's end") { $0.contains("EXIT=0") }
        let tmuxAgain = try connect(gateway)
        defer { tmuxAgain.kill() }
        try await expect(tmuxAgain, "a session in the freed slot") { $0.contains("Customer since") }
        try tmuxAgain.sendKeys("q")
    }

    @Test func password_auth_lets_the_right_password_in_and_logs_a_wrong_one_without_it() async throws {
        let gateway = try await ServedGateway.start(
            ["--auth", "password"], environment: ["CARDEALER_SSH_PASSWORD": "correct horse"])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        func attempt(_ password: String) async throws -> (status: Int32, output: String, error: String) {
            let askpass = gateway.directory + "/askpass-\(UInt32.random(in: 0...UInt32.max))"
            try "#!/bin/sh\nprintf '%s\\n' '\(password)'\n".write(toFile: askpass, atomically: true, encoding: .utf8)
            chmod(askpass, 0o700)
            var environment = ProcessInfo.processInfo.environment
            environment["SSH_ASKPASS"] = askpass
            environment["SSH_ASKPASS_REQUIRE"] = "force"
            environment["DISPLAY"] = ":0"
            return try await runProgram(
                gateway.ssh([
                    "-T", "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password",
                    "-o", "NumberOfPasswordPrompts=1",
                ]), environment: environment)
        }
        let right = try await attempt("correct horse")
        // In, and told to use -t (the session asked for no terminal)
        #expect(right.status == 1 && right.error.contains("ssh -t"), "\(right)")
        let wrong = try await attempt("wrong pony")
        #expect(wrong.status == 255 && wrong.error.contains("Permission denied"), "\(wrong)")
        #expect(gateway.log.contains("failed password login as demo"), "\(gateway.log)")
        #expect(!gateway.log.contains("wrong pony") && !gateway.log.contains("correct horse"))

        // Without the variable, --auth password refuses to start
        let unset = try await runProgram(
            [try #require(BuiltProducts.executable("cardealer")), "serve-ssh", "--port", "0", "--auth", "password"],
            environment: ["HOME": gateway.directory, "PATH": "/usr/bin:/bin"])
        #expect(unset.status != 0 && unset.error.contains("CARDEALER_SSH_PASSWORD"), "\(unset)")
    }

    @Test(.enabled(if: sshKeygen != nil, "ssh-keygen is not installed"))
    func key_auth_lets_an_authorized_key_in_and_no_other() async throws {
        let directory = try BuiltProducts.temporaryDirectory("cardealer-ssh-keys")
        for name in ["allowed", "stranger"] {
            #expect(
                try await runProgram([sshKeygen!, "-q", "-t", "ed25519", "-N", "", "-f", directory + "/" + name]).status
                    == 0)
        }
        try FileManager.default.copyItem(atPath: directory + "/allowed.pub", toPath: directory + "/authorized_keys")
        let gateway = try await ServedGateway.start(
            ["--auth", "keys", "--authorized-keys", directory + "/authorized_keys"], directory: directory)
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        func attempt(_ key: String) async throws -> (status: Int32, output: String, error: String) {
            try await runProgram(
                gateway.ssh([
                    "-T", "-o", "IdentitiesOnly=yes", "-o", "PasswordAuthentication=no", "-o", "BatchMode=yes",
                    "-i", directory + "/" + key,
                ]))
        }
        let allowed = try await attempt("allowed")
        #expect(allowed.status == 1 && allowed.error.contains("ssh -t"), "\(allowed)")
        let stranger = try await attempt("stranger")
        #expect(stranger.status == 255 && stranger.error.contains("Permission denied"), "\(stranger)")
        #expect(gateway.log.contains("failed key login as demo"), "\(gateway.log)")
    }

    @Test func auth_none_logs_anyone_in_on_loopback_and_another_address_must_choose() async throws {
        let gateway = try await ServedGateway.start([])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        #expect(gateway.output.contains("Auth: none"))
        let anyone = try await runProgram(gateway.ssh(["-T", "-o", "BatchMode=yes"], user: "somebody"))
        #expect(anyone.status == 1 && anyone.error.contains("ssh -t -p \(gateway.port) somebody@HOST"), "\(anyone)")

        let exposed = try await runProgram(
            [try #require(BuiltProducts.executable("cardealer")), "serve-ssh", "--host", "0.0.0.0", "--port", "0"],
            environment: ["HOME": gateway.directory, "PATH": "/usr/bin:/bin"])
        #expect(exposed.status != 0 && exposed.error.contains("choose --auth"), "\(exposed)")
    }

    @Test(.enabled(if: sshKeygen != nil, "ssh-keygen is not installed"))
    func a_restart_keeps_the_host_key() async throws {
        let first = try await ServedGateway.start([])
        let keyPath = first.directory + "/data/cardealer/ssh_host_ed25519_key"
        defer { first.removeDirectory() }
        let scanned = try await runProgram([
            "/usr/bin/ssh-keyscan", "-p", "\(first.port)", "-t", "ed25519", "127.0.0.1",
        ])
        #expect(first.output.contains("generated now"))
        first.stop()
        let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        let second = try await ServedGateway.start([], directory: first.directory)
        defer { second.stop() }
        let again = try await runProgram(["/usr/bin/ssh-keyscan", "-p", "\(second.port)", "-t", "ed25519", "127.0.0.1"])
        #expect(!second.output.contains("generated now"))
        let key = { (text: String) in
            text.split(separator: "\n").first { $0.contains("ssh-ed25519") }?.split(separator: " ").last
        }
        #expect(key(scanned.output) != nil && key(scanned.output) == key(again.output), "\(scanned) / \(again)")
        // and it is the one the server printed and ssh-keygen reads from the file
        let fingerprint = try await runProgram([sshKeygen!, "-l", "-f", keyPath]).output
        let printed = second.output.split(separator: " ").first { $0.hasPrefix("SHA256:") }
        #expect(printed != nil && fingerprint.contains(String(printed!)), "\(fingerprint) / \(second.output)")
    }

    @Test func the_memory_cap_applies_to_every_sessions_process() async throws {
        // Given a cap far below what the browser needs to load (its VmPeak is a few hundred MiB)
        let gateway = try await ServedGateway.start(["--memory-mib", "64"])
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        // The session's process cannot map itself, ends at once, and the client gets its exit status
        let capped = try await runProgram(gateway.ssh(["-tt"]), timeout: .seconds(30))
        #expect(capped.status != 0 && capped.status != 255, "\(capped)")
        #expect(try await eventually { gateway.log.contains("session 1 ended (exited, status") }, "\(gateway.log)")
        #expect(try await eventually { gateway.children.isEmpty })
    }

    @Test func an_idle_session_and_one_past_its_longest_are_ended_with_a_sentence() async throws {
        for (option, sentence) in [
            ("--idle-minutes", "Session ended after 3 seconds without a keypress."),
            ("--max-session-minutes", "Session ended: a session may last 3 seconds."),
        ] {
            let gateway = try await ServedGateway.start([option, "0.05"])
            defer {
                gateway.stop()
                gateway.removeDirectory()
            }
            let tmux = try connect(gateway)
            defer { tmux.kill() }
            try await expect(tmux, "the people list") { $0.contains("Customer since") }
            if option == "--max-session-minutes" {
                // keys keep it from being idle; the length ends it all the same
                for _ in 0..<4 {
                    try tmux.sendKeys("j")
                    try await Task.sleep(for: .milliseconds(400))
                }
            }
            try await expect(tmux, "the sentence after the browser has restored the terminal") {
                $0.contains(sentence) && $0.contains("EXIT=") && !$0.contains("Customer since")
            }
            #expect(try await eventually { gateway.children.isEmpty })
        }
    }

    @Test func service_points_every_session_at_another_service() async throws {
        // A service elsewhere: the built-in one served by a process of its own
        let directory = try BuiltProducts.temporaryDirectory("cardealer-ssh-service")
        let binary = try #require(BuiltProducts.executable("cardealer"))
        let served = try await offThePool {
            try ServedProcessLine(
                binary, ["serve", "--port", "0", "--people", "12"],
                environment: ["HOME": directory, "XDG_DATA_HOME": directory + "/data", "PATH": "/usr/bin:/bin"])
        }
        defer { served.stop() }
        let root = try #require(served.line.split(separator: " ").dropFirst().first.map(String.init))
        let gateway = try await ServedGateway.start(["--service", root], directory: directory)
        defer {
            gateway.stop()
            gateway.removeDirectory()
        }
        #expect(gateway.output.contains("Sessions browse \(root)"), "\(gateway.output)")
        let tmux = try connect(gateway)
        defer { tmux.kill() }
        // No profile for a service it does not know: the list of entity sets, then People by drilling
        try await expect(tmux, "the service's entity sets") {
            $0.contains("Person") && $0.contains("Maintenance") && $0.contains("● online")
        }
        try tmux.sendKeys("q")
        try await expect(tmux, "a clean exit") { $0.contains("EXIT=0") }
    }
}

/// A child process whose first standard-output line starting `Serving ` is kept (blocking; run off the pool).
final class ServedProcessLine: @unchecked Sendable {
    let process = Process()
    let line: String

    init(_ binary: String, _ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("\n") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        line = String(text.split(separator: "\n").first ?? "")
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}
