import Foundation

/// The nice value of the calling thread (on Linux a per-thread attribute), nil where it cannot be read: for tests
/// that background work runs below the screens.
public func threadNice() -> Int? {
    guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return nil }
    // After the command name: state is field 3, nice field 19.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    return fields.count > 16 ? Int(fields[16]) : nil
}
