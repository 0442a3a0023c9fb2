import Foundation

/// Polls an async condition until it holds or the deadline passes (no fixed sleeps); it is asked once more
/// at the deadline, so a poller that was not scheduled for a while still sees what happened meanwhile.
/// The deadline is generous (a machine busy building can stall a test for seconds); a condition that holds
/// returns at once, so it costs nothing when all is well.
public func eventually(seconds: Double = 20, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    return try await condition()
}
