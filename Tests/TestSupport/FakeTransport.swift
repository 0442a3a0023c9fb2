import Foundation
import ODataCore

import Sync

/// A scripted transport: answers by URL through a handler, counts and records requests,
/// and can hold requests until released (to make concurrency observable without sleeps).
public actor FakeTransport: ODataTransport {
    public typealias Handler = @Sendable (TransportRequest, Int) throws -> TransportResponse

    private var handler: Handler
    public private(set) var requests: [TransportRequest] = []
    private var held = false
    private var holdOnly: (@Sendable (TransportRequest) -> Bool)?
    private var holders: [CheckedContinuation<Void, Never>] = []

    public init(handler: @escaping Handler) {
        self.handler = handler
    }

    public func setHandler(_ handler: @escaping Handler) { self.handler = handler }

    /// While held, requests wait (counted) until ``release()``.
    public func hold() { held = true }

    /// Only the requests `only` picks wait, until ``release()``.
    public func hold(only: @escaping @Sendable (TransportRequest) -> Bool) { holdOnly = only }

    public func release() {
        held = false
        holdOnly = nil
        let waiting = holders
        holders = []
        for holder in waiting { holder.resume() }
    }

    public var waitingCount: Int { holders.count }

    public func count(of url: String) -> Int { requests.filter { $0.url == url }.count }

    public nonisolated func send(_ request: TransportRequest) async throws -> TransportResponse {
        let number = await record(request)
        if await isHeld(request) { await wait() }
        try Task.checkCancellation()
        return try await currentHandler(request, number)
    }

    private func isHeld(_ request: TransportRequest) -> Bool { held || holdOnly?(request) == true }

    private func wait() async {
        await withCheckedContinuation { holders.append($0) }
    }

    private func record(_ request: TransportRequest) -> Int {
        requests.append(request)
        return requests.count
    }

    private func currentHandler(_ request: TransportRequest, _ number: Int) throws -> TransportResponse {
        try handler(request, number)
    }
}

/// A clock whose sleeps are recorded and end only when the test advances time.
public actor ManualClock: SyncClock {
    private var current = Date(timeIntervalSince1970: 1_700_000_000)
    public private(set) var sleeps: [Double] = []
    private var sleepers: [(deadline: Date, continuation: CheckedContinuation<Void, Never>)] = []
    private let autoAdvance: Bool

    /// With `autoAdvance`, every sleep returns at once (after moving time on).
    public init(autoAdvance: Bool = false) {
        self.autoAdvance = autoAdvance
    }

    public nonisolated func now() -> Date { Date(timeIntervalSince1970: 1_700_000_000) }

    public func sleep(seconds: Double) async throws {
        sleeps.append(seconds)
        if autoAdvance { return }
        let deadline = current.addingTimeInterval(seconds)
        await withCheckedContinuation { sleepers.append((deadline, $0)) }
        try Task.checkCancellation()
    }

    public var pendingSleeps: Int { sleepers.count }

    public func advance(by seconds: Double) {
        current = current.addingTimeInterval(seconds)
        let due = sleepers.filter { $0.deadline <= current }
        sleepers.removeAll { $0.deadline <= current }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

public func json(_ text: String, status: Int = 200, etag: String? = nil) -> TransportResponse {
    TransportResponse(status: status, headers: etag.map { ["etag": $0] } ?? [:], body: Array(text.utf8))
}
