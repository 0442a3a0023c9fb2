import CarDealerTestSupport
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

@testable import Browser

/// Records what screens tell the fetcher (a fake at the intents seam; the real Sync is
/// exercised by the end-to-end test and SyncTests).
final class RecordingIntents: SyncIntents, @unchecked Sendable {
    // Protected by `lock`.
    private let lock = NSLock()
    private var _shown: [(ScreenContent, Range<Int>, ScreenID)] = []
    private var _rested: [EntityKey] = []
    private var _neighbours: [[EntityKey]] = []
    private var _landings: [EntityKey?] = []
    private var _closed: [ScreenID] = []

    var shown: [(ScreenContent, Range<Int>, ScreenID)] { lock.withLock { _shown } }
    var rested: [EntityKey] { lock.withLock { _rested } }
    /// The neighbours told with each rest, in order.
    var neighbours: [[EntityKey]] { lock.withLock { _neighbours } }
    /// The landing row told with each rest, in order.
    var landings: [EntityKey?] { lock.withLock { _landings } }
    var closed: [ScreenID] { lock.withLock { _closed } }

    func screenDidShow(_ content: ScreenContent, visible: Range<Int>, screen: ScreenID) {
        lock.withLock { _shown.append((content, visible, screen)) }
    }
    func cursorDidRest(on key: EntityKey, neighbours: [EntityKey], landing: EntityKey?, in screen: ScreenID) {
        lock.withLock {
            _rested.append(key)
            _neighbours.append(neighbours)
            _landings.append(landing)
        }
    }
    func screenDidClose(_ screen: ScreenID) { lock.withLock { _closed.append(screen) } }
    func refresh(screen: ScreenID) {}
}

/// Writes people, cars and links as Sync's normaliser would after `Person?$expand=PersonCar/Car`.
func seedPeople(
    _ cache: CacheDatabase,
    people: [(id: Int, first: String, last: String, cars: [(link: Int, car: Int, make: String, model: String)])],
    at now: Date = Date()
) throws {
    try cache.writeBlocking { session in
        for person in people {
            try session.upsertEntity(
                key: "Person(\(person.id))", entitySet: "Person", type: "edmexampleModel.Person",
                properties: [
                    ODataProperty(name: "personID", value: .int(Int64(person.id))),
                    ODataProperty(name: "firstName", value: .string(person.first)),
                    ODataProperty(name: "lastName", value: .string(person.last)),
                    ODataProperty(
                        name: "createDate", value: .dateTime(ODataInstant(millisecondsSince1970: 1_257_008_908_440))),
                ], etag: nil, at: now, partial: false
            )
            for car in person.cars {
                try session.upsertEntity(
                    key: "PersonCar(\(car.link))", entitySet: "PersonCar", type: nil,
                    properties: [ODataProperty(name: "personCarID", value: .int(Int64(car.link)))],
                    etag: nil, at: now, partial: false)
                try session.upsertEntity(
                    key: "Car(\(car.car))", entitySet: "Car", type: nil,
                    properties: [
                        ODataProperty(name: "carID", value: .int(Int64(car.car))),
                        ODataProperty(name: "make", value: .string(car.make)),
                        ODataProperty(name: "model", value: .string(car.model)),
                        ODataProperty(
                            name: "manufactureDate",
                            value: .dateTime(ODataInstant(millisecondsSince1970: 1_099_242_508_440))),
                    ], etag: nil, at: now, partial: false
                )
                try session.replaceRelation(
                    parent: "PersonCar(\(car.link))", navigation: "Car", children: ["Car(\(car.car))"], at: now)
            }
            try session.replaceRelation(
                parent: "Person(\(person.id))", navigation: "PersonCar",
                children: person.cars.map { "PersonCar(\($0.link))" }, at: now)
        }
    }
}

/// Writes a car's service history as Sync would after `PersonCar(link)?$expand=PersonCarMaintenance/Maintenance`.
func seedMaintenance(
    _ cache: CacheDatabase, link: Int, records: [(id: Int, date: Int64, text: String, mileage: Int, cost: String)],
    at now: Date = Date()
) throws {
    try cache.writeBlocking { session in
        for record in records {
            try session.upsertEntity(
                key: "PersonCarMaintenance(\(record.id))", entitySet: "PersonCarMaintenance", type: nil,
                properties: [ODataProperty(name: "personCarMaintenanceID", value: .int(Int64(record.id)))], etag: nil,
                at: now, partial: false)
            try session.upsertEntity(
                key: "Maintenance(\(record.id))", entitySet: "Maintenance", type: nil,
                properties: [
                    ODataProperty(name: "maintenanceID", value: .int(Int64(record.id))),
                    ODataProperty(name: "description", value: .string(record.text)),
                    ODataProperty(
                        name: "serviceDate", value: .dateTime(ODataInstant(millisecondsSince1970: record.date))),
                    ODataProperty(name: "mileage", value: .int(Int64(record.mileage))),
                    ODataProperty(name: "cost", value: .decimal(record.cost)),
                ], etag: nil, at: now, partial: false)
            try session.replaceRelation(
                parent: "PersonCarMaintenance(\(record.id))", navigation: "Maintenance",
                children: ["Maintenance(\(record.id))"], at: now)
        }
        try session.replaceRelation(
            parent: "PersonCar(\(link))", navigation: "PersonCarMaintenance",
            children: records.map { "PersonCarMaintenance(\($0.id))" }, at: now)
    }
}

/// Records the changes screens hand to the fetcher (a fake at the write seam; the real outbox is SyncTests').
final class RecordingWrites: WriteIntents, @unchecked Sendable {
    private let lock = NSLock()
    private var _saved: [EntityChange] = []
    private var _resolved: [(Int64, OutboxResolution)] = []
    private var _deleted: [EntityDeletion] = []

    var saved: [EntityChange] { lock.withLock { _saved } }
    var deleted: [EntityDeletion] { lock.withLock { _deleted } }
    func delete(_ deletion: EntityDeletion) { lock.withLock { _deleted.append(deletion) } }
    var resolved: [(Int64, OutboxResolution)] { lock.withLock { _resolved } }

    func save(_ change: EntityChange) { lock.withLock { _saved.append(change) } }
    private var _created: [EntityCreation] = []
    private var _linked: [EntityLink] = []
    var created: [EntityCreation] { lock.withLock { _created } }
    var linked: [EntityLink] { lock.withLock { _linked } }
    func create(_ creation: EntityCreation) { lock.withLock { _created.append(creation) } }
    func link(_ link: EntityLink) { lock.withLock { _linked.append(link) } }
    func resolve(outboxEntry id: Int64, _ resolution: OutboxResolution) {
        lock.withLock { _resolved.append((id, resolution)) }
    }
    private var _invoked: [ActionInvocation] = []
    var invoked: [ActionInvocation] { lock.withLock { _invoked } }
    func invoke(_ invocation: ActionInvocation) { lock.withLock { _invoked.append(invocation) } }
    /// What a form asked of its entity's draft: `edit KEY`, `change NAME=VALUE`, `discard KEY`.
    private var _drafts: [String] = []
    var drafts: [String] { lock.withLock { _drafts } }
    func editDraft(of key: EntityKey, etag: String?) { lock.withLock { _drafts.append("edit \(key)") } }
    func changeDraft(_ change: EntityChange) {
        lock.withLock { _drafts += change.changes.map { "change \($0.name)=\($0.value)" } }
    }
    func discardDraft(of key: EntityKey) { lock.withLock { _drafts.append("discard \(key)") } }
}

extension BrowserEnvironment {
    /// The cache a test made, to write into as the fetcher would: screens hold it only to read
    /// (``EntityCache/CacheReader``), and every environment a test builds is given a ``CacheDatabase``.
    var testCache: CacheDatabase {
        guard let database = cache as? CacheDatabase else { fatalError("a test's environment holds a CacheDatabase") }
        return database
    }
}

extension BrowserApp {
    /// The app on a headless terminal of `size`, showing `root` (the people list unless given), its first frame
    /// drawn unless `present` is false: how a screen test starts.
    static func presented(
        _ environment: BrowserEnvironment, size: TerminalSize, root: (any ScreenController)? = nil,
        present: Bool = true
    ) -> (BrowserApp, HeadlessTerminal) {
        let terminal = HeadlessTerminal(size: size)
        let app = BrowserApp(
            terminal: terminal, environment: environment,
            root: root ?? EntityListController(environment: environment, entitySet: "Person"))
        if present { app.presentIfNeeded() }
        return (app, terminal)
    }
}
