import Foundation

/// The one poller of the test suite: asks `condition` until it holds or `seconds` pass (no fixed sleeps), then
/// once more at the deadline, so a poller that was not scheduled for a while still sees what happened meanwhile.
///
/// It runs on the caller's actor (a main-actor test polls main-actor state, and lets the main queue deliver
/// observations and frames between asks). The deadline is generous: a machine busy building can stall a test
/// for seconds, and a condition that holds returns at once, so it costs nothing when all is well.
public func eventually(
    seconds: Double = 60, isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    return try await condition()
}
