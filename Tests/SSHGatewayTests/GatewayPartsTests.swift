import CarDealerTestSupport
import Crypto
import Foundation
import NIOSSH
import Testing

@testable import SSHGateway

/// Runs a program to its end on a thread of its own (see ``offThePool(_:)``): (exit status, output, error).
func runProgram(
    _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(60)
) async throws -> (status: Int32, output: String, error: String) {
    try await offThePool { try runProgramBlocking(arguments, environment: environment, timeout: timeout) }
}

/// Runs a program to its end, blocking the calling thread: (exit status, standard output, standard error).
func runProgramBlocking(
    _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(60)
) throws -> (status: Int32, output: String, error: String) {
    let directory = NSTemporaryDirectory() + "gateway-run-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let pid = try spawnWithDefaultSignals(
        arguments, environment: environment ?? ProcessInfo.processInfo.environment, output: directory + "/out",
        error: directory + "/err", searchPath: true)
    var status: Int32 = 0
    let deadline = ContinuousClock.now + timeout
    while waitpid(pid, &status, WNOHANG) == 0 {
        if ContinuousClock.now > deadline {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            break
        }
        usleep(10_000)
    }
    let output = (try? String(contentsOfFile: directory + "/out", encoding: .utf8)) ?? ""
    let error = (try? String(contentsOfFile: directory + "/err", encoding: .utf8)) ?? ""
    let exited = status & 0x7f == 0
    return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output, error)
}

let sshKeygen = ["/usr/bin/ssh-keygen", "/usr/local/bin/ssh-keygen"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// The host key file, the authorized keys, the limits and what a client may put in TERM.
@Suite(.tags(.endToEnd)) struct GatewayPartsTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "gateway-parts-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return path
    }

    @Test func a_generated_host_key_is_kept_0600_and_the_same_key_comes_back() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/keys/host"
        let (first, generated) = try HostKeyFile.loadOrCreate(at: path)
        #expect(generated)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let (second, generatedAgain) = try HostKeyFile.loadOrCreate(at: path)
        #expect(!generatedAgain)
        #expect(second.key.rawRepresentation == first.key.rawRepresentation)
        #expect(second.fingerprint == first.fingerprint)
    }

    @Test(.enabled(if: sshKeygen != nil, "ssh-keygen is not installed"))
    func openssh_reads_our_key_file_and_we_read_its() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // ssh-keygen reads the file we write, and sees the same public key and fingerprint
        let ours = directory + "/ours"
        let (key, _) = try HostKeyFile.loadOrCreate(at: ours)
        let publicLine = try await runProgram([sshKeygen!, "-y", "-f", ours])
        #expect(publicLine.status == 0, "\(publicLine.error)")
        #expect(publicLine.output.hasPrefix(key.publicKeyLine + " "), "\(publicLine.output) vs \(key.publicKeyLine)")
        let fingerprint = try await runProgram([sshKeygen!, "-l", "-f", ours])
        #expect(fingerprint.output.contains(key.fingerprint), "\(fingerprint.output) vs \(key.fingerprint)")

        // and we read one ssh-keygen made
        let theirs = directory + "/theirs"
        #expect(try await runProgram([sshKeygen!, "-q", "-t", "ed25519", "-N", "", "-f", theirs]).status == 0)
        let loaded = try HostKeyFile.load(from: theirs)
        let expected = try await runProgram([sshKeygen!, "-l", "-f", theirs]).output
        #expect(expected.contains(loaded.fingerprint), "\(expected) vs \(loaded.fingerprint)")
    }

    @Test(.enabled(if: sshKeygen != nil, "ssh-keygen is not installed"))
    func unusable_host_keys_are_refused_with_a_sentence() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Readable by others
        let open = directory + "/open"
        _ = try HostKeyFile.loadOrCreate(at: open)
        chmod(open, 0o644)
        #expect(throws: HostKeyError.self) { try HostKeyFile.load(from: open) }
        do {
            _ = try HostKeyFile.load(from: open)
        } catch {
            #expect("\(error)".contains("chmod 600"))
        }
        // Encrypted
        let locked = directory + "/locked"
        #expect(
            try await runProgram([sshKeygen!, "-q", "-t", "ed25519", "-N", "a passphrase", "-f", locked]).status == 0)
        do {
            _ = try HostKeyFile.load(from: locked)
            Issue.record("an encrypted key was accepted")
        } catch {
            #expect("\(error)".contains("encrypted"))
        }
        // Not Ed25519
        let ecdsa = directory + "/ecdsa"
        #expect(try await runProgram([sshKeygen!, "-q", "-t", "ecdsa", "-N", "", "-f", ecdsa]).status == 0)
        do {
            _ = try HostKeyFile.load(from: ecdsa)
            Issue.record("an ECDSA host key was accepted")
        } catch {
            #expect("\(error)".contains("Ed25519"))
        }
        // Garbage
        #expect(throws: HostKeyError.self) { try HostKeyFile.parse("-----BEGIN OPENSSH PRIVATE KEY-----\n!!\n") }
        #expect(throws: HostKeyError.self) {
            try HostKeyFile.parse(
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----"
            )
        }
    }

    @Test func authorized_keys_take_ed25519_and_ecdsa_and_skip_what_they_cannot_honour() throws {
        let ed25519 = Curve25519.Signing.PrivateKey()
        let p256 = P256.Signing.PrivateKey()
        let edLine = HostKeyFile(key: ed25519).publicKeyLine
        let p256Line = String(openSSHPublicKey: NIOSSHPrivateKey(p256Key: p256).publicKey)
        let text = """
            # the demo's keys

            \(edLine) alice@laptop
            \(p256Line)
            ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 bob@old
            command="ls",no-pty \(edLine) restricted
            ssh-ed25519 not-base64!!
            """
        let keys = AuthorizedKeys.parse(text)
        #expect(
            keys.keys == [NIOSSHPrivateKey(ed25519Key: ed25519).publicKey, NIOSSHPrivateKey(p256Key: p256).publicKey])
        #expect(keys.skipped.count == 3, "\(keys.skipped)")
        #expect(keys.skipped.contains { $0.hasPrefix("line 5:") && $0.contains("ssh-rsa") })
        #expect(keys.skipped.contains { $0.hasPrefix("line 6:") && $0.contains("options") })
        #expect(keys.skipped.contains { $0.hasPrefix("line 7:") && $0.contains("does not decode") })
    }

    @Test func connections_per_address_and_sessions_are_capped() {
        let limits = GatewayLimits(maxSessions: 2, connectionsPerMinute: 3)
        let start = ContinuousClock.now
        #expect((0..<3).allSatisfy { _ in limits.admitConnection(from: "10.0.0.1", now: start) })
        #expect(!limits.admitConnection(from: "10.0.0.1", now: start + .seconds(30)))
        // another address has its own count; a minute later the first may come back
        #expect(limits.admitConnection(from: "10.0.0.2", now: start + .seconds(30)))
        #expect(limits.admitConnection(from: "10.0.0.1", now: start + .seconds(61)))

        #expect(limits.openSession() == 1)
        #expect(limits.openSession() == 2)
        #expect(limits.openSession() == nil)
        limits.closeSession()
        #expect(limits.openSession() == 3)
        #expect(limits.openSessions == 2)
    }

    @Test func term_from_the_client_is_a_terminfo_name_or_a_safe_default() {
        #expect(gatewayTerm("xterm-256color") == "xterm-256color")
        #expect(gatewayTerm("screen.xterm-256color") == "screen.xterm-256color")
        #expect(gatewayTerm("vt100") == "vt100")
        #expect(gatewayTerm("") == "xterm-256color")
        #expect(gatewayTerm("../../etc/passwd") == "xterm-256color")
        #expect(gatewayTerm("xterm\u{1b}[31m") == "xterm-256color")
        #expect(gatewayTerm(String(repeating: "x", count: 200)) == "xterm-256color")
        #expect("demo\u{1b}]0;owned\u{07} user".sanitisedForGateway() == "demo]0;owneduser")
    }

    @Test func passwords_compare_by_value() {
        #expect(GatewayAuthDelegate.sameSecret("horse battery", "horse battery"))
        #expect(!GatewayAuthDelegate.sameSecret("horse batterz", "horse battery"))
        #expect(!GatewayAuthDelegate.sameSecret("", "horse battery"))
    }
}
