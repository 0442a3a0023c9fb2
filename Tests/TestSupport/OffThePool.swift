import Foundation

/// Runs blocking work (waiting for a child process, polling a file) on a thread of its own and awaits it.
///
/// Swift's cooperative pool has as many threads as cores (two here); a test that blocks one while an in-process
/// server in another test needs the pool for its handlers starves that server, and both time out. Anything that
/// waits on a process or a socket without `await` goes through here.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
