import EntityCache
import ODataCore
import Testing

@testable import Sync

/// What an answer to a write means, as a table (issue 34): the same function reads a write sent alone and each answer
/// inside a `$batch`.
@Suite struct WriteVerdictTests {
    typealias Known = WriteVerdict.Known

    static let plain = Known()
    static let repeatable = Known(honoursRepeatability: true)
    static let tunnelling = Known(tunnelsMerge: true)
    static let version4 = Known(version4: true)

    @Test(arguments: [
        (OutboxEntry.Kind.update, 204, plain, WriteVerdict.settled),
        (.update, 200, plain, .settled),
        (.create, 201, plain, .settled),
        (.delete, 204, plain, .settled),
        (.delete, 404, plain, .alreadyGone),
        (.unlink, 404, plain, .alreadyGone),
        (.update, 404, plain, .refused),
        (.create, 404, plain, .refused),
        (.update, 405, plain, .tunnelAndResend),
        (.update, 501, plain, .tunnelAndResend),
        (.update, 405, tunnelling, .refused),
        (.update, 501, tunnelling, .retry(after: nil)),
        (.update, 405, version4, .refused),
        (.delete, 405, plain, .refused),
        (.update, 412, plain, .conflict),
        (.delete, 412, plain, .conflict),
        (.create, 502, plain, .unknownOutcome),
        (.create, 504, plain, .unknownOutcome),
        (.create, 502, repeatable, .retry(after: nil)),
        (.update, 502, plain, .retry(after: nil)),
        (.update, 500, plain, .retry(after: nil)),
        (.create, 503, plain, .retry(after: nil)),
        (.update, 408, plain, .retry(after: nil)),
        (.update, 429, plain, .retry(after: nil)),
        (.update, 400, plain, .refused),
        (.create, 409, plain, .refused),
        (.update, 403, plain, .refused),
        (.update, 428, plain, .refused),
        (.update, 302, plain, .refused),
    ])
    func an_answer_means(kind: OutboxEntry.Kind, status: Int, known: Known, verdict: WriteVerdict) {
        #expect(WriteVerdict.of(kind, status: status, known: known) == verdict, "\(kind) \(status)")
    }

    @Test func a_wait_the_service_asks_for_is_kept() {
        #expect(WriteVerdict.of(.update, status: 429, retryAfter: 7, known: Self.plain) == .retry(after: 7))
        #expect(WriteVerdict.of(.create, status: 503, retryAfter: 30, known: Self.plain) == .retry(after: 30))
    }

    @Test(arguments: [
        (OutboxEntry.Kind.update, ODataError.Kind.transport, false, plain, WriteVerdict.offline),
        (.create, .transport, false, plain, .unknownOutcome),
        (.create, .transport, true, plain, .offline),
        (.create, .transport, false, repeatable, .offline),
        (.delete, .transport, false, plain, .offline),
        (.update, .refused, false, plain, .refused),
        (.create, .refused, false, plain, .refused),
    ])
    func no_answer_means(
        kind: OutboxEntry.Kind, failure: ODataError.Kind, neverSent: Bool, known: Known, verdict: WriteVerdict
    ) {
        var error = ODataError(kind: failure, message: "no answer", url: "u")
        error.neverSent = neverSent
        #expect(WriteVerdict.of(kind, failure: error, known: known) == verdict, "\(kind) \(failure) \(neverSent)")
    }
}
