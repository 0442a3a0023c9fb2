import CarDealerTestSupport
import Foundation
import ODataCore
import Testing

@testable import EntityCache

/// The outbox: a write's optimistic change and its queued row in one transaction, and how they settle.
@Suite struct OutboxTests {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    let car: EntityKey = "Car(1)"

    func cacheWithCar() throws -> CacheDatabase {
        let cache = try CacheDatabase()
        try fetchCar(into: cache)
        return cache
    }

    /// Car(1) as the service has it (Ford Focus, ETag 1), written as a fetch writes it.
    func fetchCar(into cache: CacheDatabase) throws {
        try cache.writeBlocking { session in
            try session.upsertEntity(
                key: car, entitySet: "Car", type: nil,
                properties: [
                    .init(name: "carID", value: .int(1)), .init(name: "make", value: .string("Ford")),
                    .init(name: "model", value: .string("Focus")),
                ],
                etag: "W/\"1\"", at: date, partial: false)
        }
    }

    func update(_ cache: CacheDatabase, _ field: String, _ text: String, id: String) throws -> Int64 {
        try cache.writeBlocking {
            try $0.enqueueUpdate(car, changes: [.init(name: field, value: .string(text))], requestID: id, at: date)
        }
    }

    @Test func an_update_shows_at_once_marked_pending_and_is_queued_against_the_etag_it_was_made_on() throws {
        let cache = try cacheWithCar()
        // When the model is changed here
        let id = try update(cache, "model", "Fiesta", id: "r1")
        // Then the cached car shows it, marked pending, and the outbox holds the write with what it replaced
        let shown = try #require(try cache.entity(car))
        #expect(shown["model"] == .string("Fiesta") && shown.pendingWrites == 1)
        let entry = try #require(try cache.outboxEntries().first)
        #expect(entry.id == id && entry.state == .pending && entry.baseEtag == "W/\"1\"" && entry.requestID == "r1")
        #expect(entry.changes == [.init(name: "model", value: .string("Fiesta"))])
        #expect(entry.base.first { $0.name == "model" }?.value == .string("Focus"))
        #expect(try cache.outboxCounts() == OutboxCounts(pending: 1, failed: 0))
    }

    @Test func a_write_that_fails_inside_its_transaction_leaves_neither_change_nor_entry() throws {
        let cache = try cacheWithCar()
        struct Crash: Error {}
        #expect(throws: Crash.self) {
            try cache.writeBlocking { session in
                _ = try session.enqueueUpdate(
                    car, changes: [.init(name: "model", value: .string("Ka"))], requestID: "r", at: date)
                throw Crash()
            }
        }
        #expect(try cache.entity(car)?["model"] == .string("Focus"))
        #expect(try cache.outboxEntries().isEmpty)
    }

    @Test func a_fetch_never_overwrites_a_pending_change_and_settling_takes_the_new_etag() throws {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "Fiesta", id: "r1")
        _ = try update(cache, "make", "FORD", id: "r2")
        // When a fetch brings the service's older copy while the writes are pending
        try fetchCar(into: cache)
        // Then the optimistic values stay
        #expect(try cache.entity(car)?["model"] == .string("Fiesta"))
        // And only the oldest write of the car is due
        #expect(try cache.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 10) }.map(\.id) == [first])
        // When the service applies the first, with a new ETag
        try cache.writeBlocking { try $0.settleOutbox(first, etag: "W/\"2\"") }
        // Then the car has the new ETag, one write left, made against that ETag
        let shown = try #require(try cache.entity(car))
        #expect(shown.etag == "W/\"2\"" && shown.pendingWrites == 1 && shown["make"] == .string("FORD"))
        #expect(try cache.outboxEntries().map(\.baseEtag) == ["W/\"2\""])
    }

    @Test func a_refused_write_rolls_its_fields_back_and_holds_the_entitys_later_writes() throws {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "X", id: "r1")
        let second = try update(cache, "make", "Y", id: "r2")
        // When the service refuses the first
        try cache.writeBlocking { try $0.failOutbox(first, error: "model is too short") }
        // Then model is back, make keeps the later change, and nothing of this car is due
        let shown = try #require(try cache.entity(car))
        #expect(shown["model"] == .string("Focus") && shown["make"] == .string("Y") && shown.pendingWrites == 1)
        #expect(try cache.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 10) }.isEmpty)
        #expect(try cache.outboxCounts() == OutboxCounts(pending: 1, failed: 1))
        // When the failed one is discarded, the later one is due
        try cache.writeBlocking { try $0.discardOutbox(first) }
        #expect(try cache.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 10) }.map(\.id) == [second])
    }

    @Test func a_refused_change_leaves_a_later_change_of_the_same_field_shown_and_standing_on_the_services_value()
        throws
    {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "X", id: "r1")
        let second = try update(cache, "model", "Y", id: "r2")
        // When the service refuses the first
        try cache.writeBlocking { try $0.failOutbox(first, error: "model is too short") }
        // Then the row shows the change still waiting, not the value before the refused one
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        // And when the first is dropped and the second is refused too, the row shows what the service has
        try cache.writeBlocking { try $0.discardOutbox(first) }
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        try cache.writeBlocking { try $0.failOutbox(second, error: "model is too short") }
        let shown = try #require(try cache.entity(car))
        #expect(shown["model"] == .string("Focus") && shown["make"] == .string("Ford") && shown.pendingWrites == 0)
    }

    @Test func a_refused_change_sent_again_shows_under_a_later_change_and_what_it_made_stands_under_that_one()
        throws
    {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "X", id: "r1")
        let second = try update(cache, "model", "Y", id: "r2")
        try cache.writeBlocking { try $0.failOutbox(first, error: "model is too short") }
        // When it is sent again as it was, and refused again: the row shows the later change all along
        try cache.writeBlocking { try $0.retryFailedOutbox(first) }
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        try cache.writeBlocking { try $0.failOutbox(first, error: "model is too short") }
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        // When it is sent again and made, and then the later one is refused: the row shows what the service made
        try cache.writeBlocking { try $0.retryFailedOutbox(first) }
        try cache.writeBlocking { try $0.settleOutbox(first, etag: "W/\"2\"") }
        try cache.writeBlocking { try $0.failOutbox(second, error: "model is too long") }
        #expect(try cache.entity(car)?["model"] == .string("X"))
    }

    @Test func a_refused_change_edited_and_made_is_what_a_later_refused_change_falls_back_to() throws {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "X", id: "r1")
        let second = try update(cache, "model", "Y", id: "r2")
        try cache.writeBlocking { try $0.failOutbox(first, error: "model is too short") }
        // When the refused one is edited to Z and sent (the row keeps showing the later change) and made
        try cache.writeBlocking { try $0.resendOutbox(first, changes: [.init(name: "model", value: .string("Z"))]) }
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        try cache.writeBlocking { try $0.settleOutbox(first, etag: "W/\"2\"") }
        // Then the later one, refused, falls back to Z
        try cache.writeBlocking { try $0.failOutbox(second, error: "model is too long") }
        #expect(try cache.entity(car)?["model"] == .string("Z"))
    }

    @Test func taking_theirs_keeps_a_later_change_shown_over_their_copy_and_standing_on_it() throws {
        let cache = try cacheWithCar()
        let first = try update(cache, "model", "X", id: "r1")
        let second = try update(cache, "model", "Y", id: "r2")
        let theirs: [ODataProperty] = [
            .init(name: "carID", value: .int(1)), .init(name: "make", value: .string("Ford")),
            .init(name: "model", value: .string("Mondeo")),
        ]
        try cache.writeBlocking {
            try $0.conflictOutbox(first, theirs: theirs, theirsEtag: "W/\"5\"", error: "changed on the service")
        }
        // When their copy is taken: the later change still shows, over it
        try cache.writeBlocking { try $0.takeTheirs(first) }
        #expect(try cache.entity(car)?["model"] == .string("Y"))
        // And refused, it falls back to their copy
        try cache.writeBlocking { try $0.failOutbox(second, error: "model is too long") }
        #expect(try cache.entity(car)?["model"] == .string("Mondeo"))
    }

    /// A change on the wire is not dropped: its answer may still make it on the service, which a rollback here
    /// would hide. Once refused, it can be.
    @Test func a_change_being_sent_is_not_dropped_until_it_is_answered() throws {
        let cache = try cacheWithCar()
        let sent = try update(cache, "model", "X", id: "r1")
        try cache.writeBlocking { try $0.markOutboxSending(sent, at: date) }
        try cache.writeBlocking { try $0.discardOutbox(sent) }
        #expect(try cache.outboxEntries().map(\.state) == [.sending])
        #expect(try cache.entity(car)?["model"] == .string("X"))
        try cache.writeBlocking { try $0.failOutbox(sent, error: "model is too short") }
        try cache.writeBlocking { try $0.discardOutbox(sent) }
        #expect(try cache.outboxEntries().isEmpty)
        #expect(try cache.entity(car)?["model"] == .string("Focus"))
    }

    @Test func a_conflict_is_resolved_by_keeping_mine_or_taking_theirs() throws {
        let cache = try cacheWithCar()
        let mine = try update(cache, "model", "Mine", id: "r1")
        let theirs: [ODataProperty] = [
            .init(name: "carID", value: .int(1)), .init(name: "make", value: .string("Ford")),
            .init(name: "model", value: .string("Theirs")),
        ]
        try cache.writeBlocking { try $0.conflictOutbox(mine, theirs: theirs, theirsEtag: "W/\"9\"", error: "changed") }
        #expect(try cache.outboxEntries().first?.state == .conflict)
        // Keep mine: queued again against their ETag, still showing mine
        try cache.writeBlocking { try $0.keepMine(mine) }
        let kept = try #require(try cache.outboxEntries().first)
        #expect(kept.state == .pending && kept.baseEtag == "W/\"9\"" && kept.theirs == nil)
        #expect(try cache.entity(car)?["model"] == .string("Mine"))
        // Take theirs (after a second conflict): the car shows theirs, with their ETag, and nothing is queued
        try cache.writeBlocking {
            try $0.conflictOutbox(mine, theirs: theirs, theirsEtag: "W/\"10\"", error: "changed")
        }
        try cache.writeBlocking { try $0.takeTheirs(mine) }
        let shown = try #require(try cache.entity(car))
        #expect(shown["model"] == .string("Theirs") && shown.etag == "W/\"10\"" && shown.pendingWrites == 0)
        #expect(try cache.outboxEntries().isEmpty)
    }

    @Test func the_outbox_survives_reopening_the_file() throws {
        let path = NSTemporaryDirectory() + "outbox-\(UUID().uuidString).sqlite"
        do {
            let cache = try CacheDatabase(path: path)
            try cache.writeBlocking { session in
                try session.upsertEntity(
                    key: car, entitySet: "Car", type: nil, properties: [.init(name: "carID", value: .int(1))],
                    etag: nil, at: date, partial: false)
                _ = try session.enqueueUpdate(
                    car, changes: [.init(name: "model", value: .string("Z"))], requestID: "r9", at: date)
                try session.markOutboxSending(1, at: date)
            }
        }
        let reopened = try CacheDatabase(path: path)
        let entry = try #require(try reopened.outboxEntries().first)
        #expect(entry.state == .sending && entry.attempts == 1 && entry.firstSent == date && entry.requestID == "r9")
        #expect(try reopened.writeBlocking { try $0.dueOutboxEntries(at: date, limit: 5) }.count == 1)
    }
}

extension OutboxTests {
    @Test func a_delete_leaves_its_list_and_relation_at_once_and_settling_removes_the_entity() throws {
        let cache = try cacheWithCar()
        let list = ListKey(canonical: "Car")
        try cache.writeBlocking { session in
            for id in 2...3 {
                try session.upsertEntity(
                    key: "Car(\(id))", entitySet: "Car", type: nil,
                    properties: [.init(name: "carID", value: .int(Int64(id)))],
                    etag: nil, at: date, partial: false)
            }
            try session.writeListPage(
                list, offset: 0, entityKeys: ["Car(2)", "Car(1)", "Car(3)"], totalCount: 3, nextLink: nil,
                isLastPage: true,
                at: date)
            try session.replaceRelation(
                parent: "Person(1)", navigation: "Cars", children: ["Car(1)", "Car(3)"], at: date)
        }
        // When Car(1) is deleted from the list
        let id = try cache.writeBlocking {
            try $0.enqueueDelete(car, shownIn: ShownIn(list: list), requestID: "d1", at: date)
        }
        // Then the rows after it move up and the count follows, at once
        let window = try cache.listWindow(list, range: 0..<5)
        #expect(window.rows.map { $0.entity?.key.canonical } == ["Car(2)", "Car(3)"])
        #expect(window.state?.totalCount == 2 && window.state?.isComplete == true)
        #expect(try cache.outboxEntries().first?.kind == .delete)
        // When the service settles it, the entity goes
        try cache.writeBlocking { try $0.settleOutbox(id, etag: nil) }
        #expect(try cache.entity(car) == nil && cache.outboxEntries().isEmpty)
        // And a delete from a relation takes it out of that relation
        let second = try cache.writeBlocking {
            try $0.enqueueDelete(
                "Car(3)", shownIn: ShownIn(parent: "Person(1)", navigation: "Cars"), requestID: "d2", at: date)
        }
        #expect(try cache.relationKeys("Person(1)", navigation: "Cars")?.keys == ["Car(1)"])
        // And a refused one puts it back to be fetched again (the relation is unknown until then)
        try cache.writeBlocking { try $0.failOutbox(second, error: "in use") }
        #expect(try cache.relationKeys("Person(1)", navigation: "Cars") == nil)
        #expect(try cache.entity("Car(3)")?.pendingWrites == 0)
    }
}

extension OutboxTests {
    @Test func an_edited_conflict_is_sent_against_their_etag_and_shows_on_their_copy() throws {
        let cache = try cacheWithCar()
        let id = try update(cache, "model", "Mine", id: "r1")
        let theirs: [ODataProperty] = [
            .init(name: "carID", value: .int(1)), .init(name: "make", value: .string("FORD")),
            .init(name: "model", value: .string("Theirs")),
        ]
        try cache.writeBlocking { try $0.conflictOutbox(id, theirs: theirs, theirsEtag: "W/\"9\"", error: "changed") }
        // When the user edits the change and sends it again
        try cache.writeBlocking { try $0.resendOutbox(id, changes: [.init(name: "model", value: .string("Edited"))]) }
        // Then it is queued against their ETag, and the car shows their make with my edited model
        let entry = try #require(try cache.outboxEntries().first)
        #expect(entry.state == .pending && entry.baseEtag == "W/\"9\"" && entry.theirs == nil)
        #expect(entry.changes == [.init(name: "model", value: .string("Edited"))])
        let shown = try #require(try cache.entity(car))
        #expect(shown["make"] == .string("FORD") && shown["model"] == .string("Edited") && shown.pendingWrites == 1)
    }

    @Test func an_edited_failed_change_shows_again_and_is_queued() throws {
        let cache = try cacheWithCar()
        let id = try update(cache, "model", "Too long", id: "r1")
        try cache.writeBlocking { try $0.failOutbox(id, error: "model takes at most 3 characters") }
        #expect(try cache.entity(car)?["model"] == .string("Focus"))
        try cache.writeBlocking { try $0.resendOutbox(id, changes: [.init(name: "model", value: .string("Ka"))]) }
        let shown = try #require(try cache.entity(car))
        #expect(shown["model"] == .string("Ka") && shown.pendingWrites == 1)
        #expect(try cache.outboxEntries().first?.state == .pending && cache.outboxCounts() == OutboxCounts(pending: 1))
    }
}

extension OutboxTests {
    @Test func a_copy_fetched_before_a_write_settled_never_undoes_it_and_a_later_one_counts() throws {
        let cache = try cacheWithCar()
        let id = try update(cache, "model", "Fiesta", id: "r1")
        let settled = date.addingTimeInterval(10)
        try cache.writeBlocking { try $0.settleOutbox(id, etag: "W/\"2\"", at: settled) }
        // When a list page asked for before the write settled arrives after it, with the old model
        func arrive(requestedAt: Date, model: String) throws {
            try cache.writeBlocking { session in
                try session.upsertEntity(
                    key: car, entitySet: "Car", type: nil,
                    properties: [.init(name: "carID", value: .int(1)), .init(name: "model", value: .string(model))],
                    etag: "W/\"1\"", at: settled.addingTimeInterval(1), partial: false,
                    requestedAt: requestedAt)
            }
        }
        try arrive(requestedAt: settled.addingTimeInterval(-1), model: "Focus")
        // Then the car keeps the written value and ETag
        #expect(try cache.entity(car)?["model"] == .string("Fiesta") && cache.entity(car)?.etag == "W/\"2\"")
        // And a copy asked for after it settled is taken, whatever it says
        try arrive(requestedAt: settled.addingTimeInterval(1), model: "Puma")
        #expect(try cache.entity(car)?["model"] == .string("Puma"))
    }
}

extension OutboxTests {
    @Test func a_delete_from_a_long_list_moves_every_later_row_up_by_one() throws {
        let cache = try cacheWithCar()
        let list = ListKey(canonical: "Car?long")
        let keys = (1...2_000).map { EntityKey(canonical: "Car(\($0))")! }
        try cache.writeBlocking { session in
            for (index, key) in keys.enumerated() where index > 0 {
                try session.upsertEntity(
                    key: key, entitySet: "Car", type: nil,
                    properties: [.init(name: "carID", value: .int(Int64(index)))],
                    etag: nil, at: date, partial: false)
            }
            try session.writeListPage(
                list, offset: 0, entityKeys: keys, totalCount: 2_000, nextLink: nil, isLastPage: true, at: date)
        }
        // When the 700th row is deleted
        try cache.writeBlocking {
            try $0.enqueueDelete(keys[699], shownIn: ShownIn(list: list), requestID: "d", at: date)
        }
        // Then every row after it sits one place up, in order, and nothing else moved
        let window = try cache.listWindow(list, range: 0..<2_000)
        #expect(window.rows.count == 1_999)
        #expect(window.rows.map { $0.entity?.key } == keys.enumerated().filter { $0.offset != 699 }.map(\.element))
        #expect(window.state?.totalCount == 1_999)
    }
}

extension OutboxTests {
    @Test func each_kind_of_write_reads_back_with_the_fields_only_it_has() throws {
        // Given one write of each kind, recorded as the fetcher records them
        let cache = try cacheWithCar()
        let person: EntityKey = "Person(3)"
        let newCar = EntityKey.temporary(in: "Car")
        let newLink = EntityKey.temporary(in: "PersonCar")
        let list = ListKey(canonical: "Car")
        try cache.writeBlocking { session in
            _ = try session.enqueueUpdate(
                car, changes: [.init(name: "model", value: .string("Ka"))], requestID: "u", at: date)
            _ = try session.enqueueAction(car, operation: "Service", parameters: [], requestID: "a", at: date)
            _ = try session.enqueueUnlink(car, parent: person, navigation: "Cars", requestID: "n", at: date)
            _ = try session.enqueueCreate(
                newCar, entitySet: "Car", properties: [.init(name: "make", value: .string("Kia"))],
                shownIn: ShownIn(list: list), requestID: "c", at: date)
            _ = try session.enqueueLink(
                newLink, entitySet: "PersonCar", parent: person, navigation: "PersonCar", bindNavigation: "Car",
                target: newCar, requestID: "l", at: date)
            _ = try session.enqueueDelete(car, shownIn: ShownIn(list: list), requestID: "d", at: date)
        }
        // When they are read back, each carries what its kind needs and nothing else
        let writes = try cache.outboxEntries().map(\.write)
        #expect(
            writes == [
                .update, .action(operation: "Service"), .unlink(parent: person, navigation: "Cars"),
                .create(shownIn: ShownIn(list: list), binding: nil),
                .create(
                    shownIn: ShownIn(parent: person, navigation: "PersonCar"),
                    binding: .init(navigation: "Car", target: newCar, madeTogether: true)),
                .delete(shownIn: ShownIn(list: list)),
            ])
        // And an unlink's relation is where it showed
        #expect(try cache.outboxEntries()[2].shownIn == ShownIn(parent: person, navigation: "Cars"))
    }
}

extension OutboxTests {
    @Test func a_row_without_what_its_kind_needs_is_read_as_incomplete_not_skipped() throws {
        // Given an unlink and an action whose rows lost what they need (nothing here writes such rows)
        let cache = try cacheWithCar()
        try cache.writeBlocking { session in
            _ = try session.enqueueUnlink(car, parent: "Person(3)", navigation: "Cars", requestID: "n", at: date)
            _ = try session.enqueueAction(car, operation: "Service", parameters: [], requestID: "a", at: date)
            try session.db.execute(sql: "UPDATE outbox SET parentKey = NULL WHERE kind = 'unlink'")
            try session.db.execute(sql: "UPDATE outbox SET operation = NULL WHERE kind = 'action'")
        }
        // Then both are still read (shown in the outbox, counted, and failed there with a sentence when due)
        #expect(try cache.outboxEntries().map(\.write) == [.incomplete(.unlink), .incomplete(.action)])
        #expect(try cache.outboxEntries().map(\.kind) == [.unlink, .action])
    }
}
