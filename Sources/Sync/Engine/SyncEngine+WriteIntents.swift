import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// What screens ask to change (``WriteIntents``), recorded in the cache with the outbox entry that sends it, in the
/// order made; and what the user decided about a write in the outbox.
extension SyncEngine: WriteIntents {
    public nonisolated func save(_ change: EntityChange) {
        intents.yield(.save(change))
    }

    public nonisolated func create(_ creation: EntityCreation) {
        intents.yield(.create(creation))
    }

    public nonisolated func link(_ link: EntityLink) {
        intents.yield(.link(link))
    }

    public nonisolated func delete(_ deletion: EntityDeletion) {
        intents.yield(.delete(deletion))
    }

    public nonisolated func invoke(_ invocation: ActionInvocation) {
        intents.yield(.invoke(invocation))
    }

    /// Records an action and starts sending it (after the writes to its entity made before).
    func record(_ invocation: ActionInvocation) async {
        let (date, requestID) = (clock.now(), Self.requestID())
        await recordAndFlush {
            _ = try $0.enqueueAction(
                try $0.madeKey(of: invocation.key), operation: invocation.operation,
                parameters: invocation.parameters, baseEtag: invocation.baseEtag, requestID: requestID, at: date)
        }
    }

    public nonisolated func editDraft(of key: EntityKey, etag: String?) {
        intents.yield(.editDraft(key, etag: etag))
    }

    public nonisolated func changeDraft(_ change: EntityChange) {
        intents.yield(.changeDraft(change))
    }

    public nonisolated func discardDraft(of key: EntityKey) {
        intents.yield(.discardDraft(key))
    }

    /// Runs `work` on the outbox after the draft work asked for on `key` before it (``Outbox/queueDraftWork(on:_:)``),
    /// off the intents' loop: fetches go on meanwhile. Offline, nothing is asked of the service: a change saved goes
    /// the queued way.
    func draftWork(on key: EntityKey, _ work: @escaping @Sendable (Outbox) async -> Void) async {
        guard isOnline else { return }
        await outbox.queueDraftWork(on: key, work)
    }

    public nonisolated func resolve(outboxEntry id: Int64, _ resolution: OutboxResolution) {
        intents.yield(.resolve(id, resolution))
    }

    /// Records a change and starts sending it.
    func record(_ change: EntityChange) async {
        let (date, requestID) = (clock.now(), Self.requestID())
        await recordAndFlush {
            // (a form opened on a new entity before the service made it holds its temporary key)
            _ = try $0.enqueueUpdate(
                try $0.madeKey(of: change.key), changes: change.changes, baseEtag: change.baseEtag,
                requestID: requestID, at: date)
        }
    }

    /// Records a write in one cache transaction, then starts sending; one that cannot be recorded is said on the
    /// status line.
    func recordAndFlush(_ record: @escaping @Sendable (CacheWriter) throws -> Void) async {
        do {
            try await cache.write(record)
        } catch {
            note(.cache(error))
            return
        }
        // (a change saved from a form goes to the draft its opening made: its send waits for that draft work)
        await flushOutbox()
    }

    /// Records a create under a temporary key (it shows at once where it was added), and, for a row reached
    /// through link entities, the new link entity that binds it; then starts sending them.
    func record(_ creation: EntityCreation) async {
        let date = clock.now()
        var entitySet = creation.entitySet
        if case .related(let parent, let path)? = creation.addedTo, path.count == 1,
            model?.resolveNavigation(path[0], fromSet: parent.entitySet)?.isContained == true
        {
            // A contained entity is made inside its container, and named by it (`Person(1)/Trips`).
            guard !parent.isTemporary else {
                note(failure: "\(parent.entitySet) is not on the service yet: its \(path[0]) can be added once it is.")
                return
            }
            entitySet = parent.canonical + "/" + path[0]
        }
        let key = EntityKey.temporary(in: entitySet)
        let madeIn = entitySet
        let properties = creation.properties
        var linkSet: String?
        if case .related(let parent, let path)? = creation.addedTo, path.count == 2 {
            linkSet = targetSet(of: parent.entitySet, navigation: path[0])
        }
        let resolvedLinkSet = linkSet
        await recordAndFlush { session in
            switch try creation.addedTo.map({ try Self.madeKeys(in: $0, session) }) {
            case .list(let request)?:
                _ = try session.enqueueCreate(
                    key, entitySet: creation.entitySet, properties: properties,
                    shownIn: ShownIn(list: request.key), requestID: Self.requestID(), at: date)
            case .related(let parent, let path)? where path.count == 1:
                _ = try session.enqueueCreate(
                    key, entitySet: madeIn, properties: properties,
                    shownIn: ShownIn(parent: parent, navigation: path[0]), requestID: Self.requestID(),
                    at: date)
            case .related(let parent, let path)? where path.count == 2:
                guard let linkSet = resolvedLinkSet else {
                    throw OutboxError(description: "\(parent.entitySet) has no navigation \(path[0]).")
                }
                _ = try session.enqueueCreate(
                    key, entitySet: creation.entitySet, properties: properties, shownIn: nil,
                    requestID: Self.requestID(), at: date)
                _ = try session.enqueueLink(
                    EntityKey.temporary(in: linkSet), entitySet: linkSet, parent: parent, navigation: path[0],
                    bindNavigation: path[1], target: key, properties: creation.linkProperties,
                    requestID: Self.requestID(), at: date)
            default:
                _ = try session.enqueueCreate(
                    key, entitySet: creation.entitySet, properties: properties, shownIn: nil,
                    requestID: Self.requestID(), at: date)
            }
        }
    }

    /// Records a new link entity joining an existing entity to a second parent; then starts sending it.
    func record(_ link: EntityLink) async {
        let date = clock.now()
        guard link.path.count == 2, let linkSet = targetSet(of: link.parent.entitySet, navigation: link.path[0]) else {
            note(
                failure: "\(link.parent.entitySet) does not link entities through \(link.path.joined(separator: "/")).")
            return
        }
        await recordAndFlush {
            _ = try $0.enqueueLink(
                EntityKey.temporary(in: linkSet), entitySet: linkSet, parent: try $0.madeKey(of: link.parent),
                navigation: link.path[0], bindNavigation: link.path[1], target: try $0.madeKey(of: link.target),
                requestID: Self.requestID(), at: date)
        }
    }

    static func requestID() -> String { UUID().uuidString.lowercased() }

    /// `content` with a parent's temporary key replaced by the one the service gave it, when it has made it.
    static func madeKeys(in content: ScreenContent, _ session: CacheWriter) throws -> ScreenContent {
        switch content {
        case .related(let parent, let path): .related(parent: try session.madeKey(of: parent), path: path)
        case .entity(let key): .entity(try session.madeKey(of: key))
        case .list, .call: content
        }
    }

    /// The entity set a navigation of `entitySet` leads to, from `$metadata`.
    func targetSet(of entitySet: String, navigation: String) -> String? {
        model?.resolveNavigation(navigation, fromSet: entitySet)?.targetSet
    }

    /// Records a delete (the entity leaves the screen it was deleted from at once) and starts sending it.
    func record(_ deletion: EntityDeletion) async {
        let (date, requestID) = (clock.now(), Self.requestID())
        await recordAndFlush { session in
            let key = try session.madeKey(of: deletion.key)
            let content = try deletion.shownIn.map { try Self.madeKeys(in: $0, session) }
            if deletion.removesLinkOnly, case .related(let parent, let path)? = content, path.count == 1 {
                _ = try session.enqueueUnlink(key, parent: parent, navigation: path[0], requestID: requestID, at: date)
                return
            }
            var shownIn: ShownIn?
            switch content {
            case .list(let request)?: shownIn = ShownIn(list: request.key)
            case .related(let parent, let path)?:
                let member = try deletion.link.map { try session.madeKey(of: $0) }
                shownIn = ShownIn(parent: parent, navigation: path.first, member: path.count > 1 ? member : nil)
            case .entity?, .call?, nil: shownIn = nil
            }
            _ = try session.enqueueDelete(key, shownIn: shownIn, requestID: requestID, at: date)
        }
    }

    func apply(_ resolution: OutboxResolution, to id: Int64) async {
        // A create dropped after the service made it a draft: that draft goes too, or it would stay on the service
        // (locking the new key for its user, in a CAP service) with nothing here that knows it. (Not while its
        // activation is on the wire: that could make the entity as the delete goes.)
        if resolution == .discard, let entry = try? cache.outboxEntry(id), entry.state != .sending,
            case .create(_, _, let draft?) = entry.write
        {
            let (date, requestID) = (clock.now(), Self.requestID())
            await recordAndFlush { session in
                try session.discardOutbox(id)
                _ = try session.enqueueDraftDiscard(draft, entitySet: entry.entitySet, requestID: requestID, at: date)
            }
            if entry.state == .failed, let made = entry.madeWithIt { await record(EntityDeletion(key: made)) }
            return
        }
        // A refused link dropped: the entity made with it, linked to nobody on the service, goes too.
        if resolution == .discard, let entry = try? cache.outboxEntry(id), entry.state == .failed,
            let made = entry.madeWithIt
        {
            try? await cache.write { try $0.discardOutbox(id) }
            await record(EntityDeletion(key: made))
            return
        }
        try? await cache.write { session in
            switch resolution {
            case .retry: try session.retryFailedOutbox(id)
            case .discard: try session.discardOutbox(id)
            case .keepMine: try session.keepMine(id)
            case .takeTheirs: try session.takeTheirs(id)
            case .resend(let changes): try session.resendOutbox(id, changes: changes)
            }
        }
        await flushOutbox()
    }
}
