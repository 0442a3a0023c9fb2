import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Synchronization
import Testing

@testable import Sync

/// The order of a form's draft work and the queued writes of the same entity (issue 36): a save made while the form's
/// draft is still being made takes that draft, whichever flush sends it; a draft discarded by Esc is deleted before
/// a change saved after it makes a draft of its own. Against the scripted CAP-shaped service of
/// ``DraftOutboxTests``, holding one request at a time.
@Suite struct DraftOrderingTests {
    /// The requests the service answered, in the order it answered them ("POST …/S.draftEdit true").
    final class Answered: Sendable {
        let lines = Mutex<[String]>([])
        func note(_ request: TransportRequest) {
            let preserve = String(decoding: request.body ?? [], as: UTF8.self).contains("\"PreserveChanges\":true")
            let url = request.url.replacingOccurrences(of: DraftOutboxTests.root, with: "")
            lines.withLock { $0.append("\(request.method.rawValue) \(url)" + (preserve ? " preserving" : "")) }
        }
        var all: [String] { lines.withLock { $0 } }
    }

    static func service(_ answered: Answered) -> FakeTransport {
        let scripted = DraftOutboxTests.service { request in
            answered.note(request)
            return request.method == .delete && request.url == DraftOutboxTests.draftURL
                ? TransportResponse(status: 204) : nil
        }
        return scripted
    }

    static let change = EntityChange(
        key: DraftOutboxTests.active, changes: [.init(name: "title", value: .string("New"))], baseEtag: "W/\"1\"")

    @Test func a_save_made_while_the_forms_draft_is_being_made_takes_that_draft_whichever_flush_sends_it()
        async throws
    {
        let answered = Answered()
        let transport = Self.service(answered)
        let (engine, cache) = try DraftOutboxTests().engine(transport)
        // Given a form whose draft is being made (the service has not answered the edit yet)
        await transport.hold(only: { String(decoding: $0.body ?? [], as: UTF8.self).contains("\"PreserveChanges\"") })
        engine.editDraft(of: DraftOutboxTests.active, etag: "W/\"1\"")
        #expect(try await eventually { await transport.waitingCount == 1 })
        // When the form is saved, and a flush runs that the save did not start (a retry's, the service back)
        engine.save(Self.change)
        await engine.flushIntents()
        await engine.flushOutbox()
        try await Task.sleep(for: .milliseconds(100))
        await transport.release()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        // Then the change went to the draft the form's opening made: it was made once, and then activated
        #expect(
            answered.all == [
                "POST Orders(ID=1,IsActiveEntity=true)/S.draftEdit preserving",
                "PATCH Orders(ID=1,IsActiveEntity=false)", "POST Orders(ID=1,IsActiveEntity=false)/S.draftPrepare",
                "POST Orders(ID=1,IsActiveEntity=false)/S.draftActivate",
            ])
        #expect(try cache.entity(DraftOutboxTests.active)?["title"] == .string("New"))
    }

    @Test func a_draft_discarded_is_deleted_before_a_change_saved_after_it_makes_its_own() async throws {
        // Given a service whose first answer to the draft's discard is 503 (a retry is due a little later)
        let answered = Answered()
        let deletes = Mutex(0)
        let transport = DraftOutboxTests.service { request in
            answered.note(request)
            guard request.method == .delete, request.url == DraftOutboxTests.draftURL else { return nil }
            return deletes.withLock {
                $0 += 1
                return $0
            } == 1 ? TransportResponse(status: 503) : TransportResponse(status: 204)
        }
        let cache = try CacheDatabase()
        try await cache.write { session in
            try session.upsertEntity(
                key: DraftOutboxTests.active, entitySet: "Orders", type: nil,
                properties: [
                    .init(name: "ID", value: .int(1)), .init(name: "title", value: .string("Old")),
                    .init(name: "IsActiveEntity", value: .bool(true)),
                ], etag: "W/\"1\"", at: Date(), partial: false)
        }
        // (on the wall clock: the retry is due seconds later, long after the save below)
        var configuration = SyncEngine.Configuration(serviceRoot: DraftOutboxTests.root)
        configuration.writeRetry = RetryPolicy(maxAttempts: .max, baseDelay: 4, maxDelay: 4, budget: .infinity)
        let engine = SyncEngine(
            configuration: configuration, cache: cache, transport: transport, model: DraftOutboxTests.model,
            random: { 0.5 })
        let draft = try #require(DraftOutboxTests.model.draftKey(of: DraftOutboxTests.active))
        // and a form whose draft was made, then left with Esc; the discard waits for its retry
        engine.editDraft(of: DraftOutboxTests.active, etag: "W/\"1\"")
        #expect(try await eventually { try cache.entity(draft) != nil })
        engine.discardDraft(of: DraftOutboxTests.active)
        #expect(try await eventually { deletes.withLock { $0 } >= 1 })
        // When the entity is changed again and saved (the form opened again made no draft: the discard is queued)
        engine.save(Self.change)
        await engine.flushIntents()
        #expect(try await eventually { try cache.outboxEntries().isEmpty })
        // Then the discard went first, and the change made a draft of its own after it, which it activated
        #expect(
            answered.all == [
                "POST Orders(ID=1,IsActiveEntity=true)/S.draftEdit preserving",
                "DELETE Orders(ID=1,IsActiveEntity=false)", "DELETE Orders(ID=1,IsActiveEntity=false)",
                "POST Orders(ID=1,IsActiveEntity=true)/S.draftEdit",
                "PATCH Orders(ID=1,IsActiveEntity=false)", "POST Orders(ID=1,IsActiveEntity=false)/S.draftPrepare",
                "POST Orders(ID=1,IsActiveEntity=false)/S.draftActivate",
            ])
        #expect(try cache.entity(DraftOutboxTests.active)?["title"] == .string("New"))
    }
}
