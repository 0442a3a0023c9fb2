import Foundation
import Session
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `--trace FILE`: one JSON object per line, for the benchmarks to read.
///
/// Every line has `t` (seconds on the system-wide monotonic clock, `CLOCK_MONOTONIC`, so other
/// processes on the machine can line their own timestamps up with it) and `event`:
/// `key` (`key`), `frame` (`n`, `depth`, `loading`, `title`, `status`), `request_start` (`id`, `url`)
/// and `request_end` (`id`, `url`, `status`, `bytes`, `ms`, `error`). Lines are written whole with one
/// `write(2)` each, under a lock, from any thread.
///
final class TraceLog: Sendable {
    /// The file descriptor, never closed (the process exits with the trace open).
    private let descriptor: Int32
    /// Held while a line is written, so that lines from two threads never interleave.
    private let writing = Mutex(())
    private let lastID = Atomic(0)

    /// Creates or truncates `path`.
    init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SessionError("Could not open the trace file \(path): \(String(cString: strerror(errno))).")
        }
        descriptor = fd
    }

    /// Seconds on `CLOCK_MONOTONIC`.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// A fresh identifier pairing a request's start and end.
    func makeID() -> Int {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Writes one event with `fields` (strings, numbers, booleans), stamped now.
    func record(_ event: String, _ fields: [String: any Sendable] = [:], at time: Double = TraceLog.now()) {
        var object: [String: Any] = ["t": time, "event": event]
        for (name, value) in fields { object[name] = value }
        guard var line = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        line.append(UInt8(ascii: "\n"))
        writing.withLock { _ in
            line.withUnsafeBytes { bytes in _ = write(descriptor, bytes.baseAddress, bytes.count) }
        }
    }
}
