import CarDealerTestSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The built `cardealer` binary running in a private tmux pane (``CardealerInTmux``), with what the reliability
/// suites read of it: its pid, its exit status, the pane's tty settings, its cache file.
struct CardealerProcess {
    /// The built binary (found as every end-to-end test finds it).
    static let executable: String? = BuiltProducts.executable("cardealer")

    /// Whether the end-to-end tests can run here.
    static var isAvailable: Bool { TmuxSession.executable != nil && executable != nil }

    let pane: CardealerInTmux
    var tmux: TmuxSession { pane.tmux }
    /// Holds `data/` (the demo's generated data), `cache/` (the browser's cache) and `state/`.
    var directory: String { pane.directory }

    /// A fresh pane of `columns`×`rows` and a private directory (reused when given).
    init(columns: Int = 80, rows: Int = 24, directory: String? = nil) throws {
        pane = try CardealerInTmux(columns: columns, rows: rows, directory: directory)
    }

    /// Types the command line that runs `cardealer arguments…`, then prints `EXIT=<status>` when it ends.
    func launch(_ arguments: [String], environment: [String: String] = [:]) throws {
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)='\($0.value)' " }.joined()
        try pane.launch(arguments.joined(separator: " "), environment: assignments)
    }

    /// The pid of the `cardealer` process that is a child of the pane's shell, once it exists.
    func pid(timeout: Duration = .seconds(15)) async throws -> pid_t? {
        let shell = try tmux.display("#{pane_pid}")
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = pid_t(entry),
                    let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")")
                else { continue }
                let name = stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]
                let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
                if name == "cardealer", fields.count > 1, String(fields[1]) == shell { return pid }
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// The `EXIT=<status>` the shell printed, once it did.
    func exitStatus(timeout: Duration = .seconds(15)) async throws -> Int? {
        // The typed command line shows `EXIT=$?`; the status is the `EXIT=` followed by digits.
        let pattern = #"EXIT=[0-9]+"#
        let result = try await tmux.waitFor(timeout: timeout) {
            $0.range(of: pattern, options: .regularExpression) != nil
        }
        guard result.matched, let range = result.screen.range(of: pattern, options: .regularExpression) else {
            return nil
        }
        return Int(result.screen[range].dropFirst("EXIT=".count))
    }

    /// A checksum of the pane's tty settings (`stty -g`), read by its shell; call while no program runs.
    func ttySettings() async throws -> String? {
        let marker = "STTY\(UInt32.random(in: 0...UInt32.max))"
        try tmux.typeLine("echo \(marker)=$(stty -g | cksum)")
        let result = try await tmux.waitFor {
            $0.contains("\(marker)=") && $0.components(separatedBy: "\(marker)=").count > 2
        }
        guard result.matched else { return nil }
        return result.screen.components(separatedBy: "\(marker)=").last?.split(separator: "\n").first.map(String.init)
    }

    /// The only cache file the browser created, once it exists.
    var cacheFile: String? {
        let folder = directory + "/cache/cardealer"
        return (try? FileManager.default.contentsOfDirectory(atPath: folder))?
            .first { $0.hasSuffix(".sqlite") }.map { folder + "/" + $0 }
    }

    func kill() {
        tmux.kill()
    }
}
