import ODataCore

/// Identifies one screen instance on the navigation stack (not its kind: two
/// people screens pushed twice are two screens).
public struct ScreenID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: Int

    public init(_ rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { "screen#\(rawValue)" }
}

/// What a screen displays, in cache terms.
public enum ScreenContent: Sendable, Hashable {
    /// A stored list (an entity set, filtered/ordered), read with `listWindow`.
    case list(ListRequest)
    /// The entities behind a navigation path of one entity, read with `related(_:path:)`;
    /// `["PersonCar", "Car"]` hops through the link entity.
    case related(parent: EntityKey, path: [String])
    /// One entity's detail, read with `entity(_:)`.
    case entity(EntityKey)
    /// What a function answers that is not a list (one entity, or a value), read with `callResult(_:)` under the
    /// call's key: the request's path calls it, its custom options are the parameters (as a listing call's are).
    case call(ListRequest)
}

/// What screens tell the background fetcher. Implemented by Sync, wired by the
/// `cardealer` executable; screens depend only on this protocol, so they can
/// never wait on the network.
///
/// All calls are fire-and-forget and cheap: they record the intent and return;
/// fetching happens later, and results arrive through cache observation.
/// Calls for a closed screen are ignored.
public protocol SyncIntents: Sendable {
    /// The screen shows `content`, rows `visible` (positions in the list or relation)
    /// on screen now. Called when the screen appears and whenever it scrolls or resizes.
    /// The fetcher fetches what is visible first, then prefetches the next screen's
    /// data for those rows, follows `__next` when `visible` nears the end of what is
    /// cached, and drops queued fetches of this screen that scrolled away.
    func screenDidShow(_ content: ScreenContent, visible: Range<Int>, screen: ScreenID)

    /// The cursor has rested on `key` (the row's entity; for hop screens the link
    /// entity) with `neighbours` just above or below, the way it travels: prefetch the
    /// next screen of each, and the level after next for `key` (the row Enter, Enter
    /// reaches), at lower priority than what is visible.
    ///
    /// `landing` names, when the cache already holds `key`'s next screen, the row that
    /// screen's cursor lands on (its first in the order shown): the level after next is
    /// then asked for that row alone, not for every row of the next screen.
    func cursorDidRest(on key: EntityKey, neighbours: [EntityKey], landing: EntityKey?, in screen: ScreenID)

    /// The screen was popped: cancel its queued and in-flight fetches that no other
    /// screen wants.
    func screenDidClose(_ screen: ScreenID)

    /// The user asked for fresh data: refetch what the screen shows, ignoring
    /// freshness (revalidating with `If-None-Match` where an ETag is known).
    func refresh(screen: ScreenID)
}

extension SyncIntents {
    /// The cursor has rested, no landing row known (see ``cursorDidRest(on:neighbours:landing:in:)``).
    public func cursorDidRest(on key: EntityKey, neighbours: [EntityKey], in screen: ScreenID) {
        cursorDidRest(on: key, neighbours: neighbours, landing: nil, in: screen)
    }
}

/// A change made on a screen, to be recorded at once in the cache and sent to the service.
public struct EntityChange: Sendable, Hashable {
    /// The entity changed.
    public var key: EntityKey
    /// The properties set, with their new values (only those that changed).
    public var changes: [ODataProperty]
    /// The version the change was made on (the ETag of the copy the form showed), sent as `If-Match`: a copy
    /// fetched while the form was open must not make the change overwrite what someone else changed meanwhile.
    /// Nil: the version cached when the change is recorded.
    public var baseEtag: String?

    public init(key: EntityKey, changes: [ODataProperty], baseEtag: String? = nil) {
        self.key = key
        self.changes = changes
        self.baseEtag = baseEtag
    }
}

/// An action invoked on `key`: the operation by the name the model finds it by (`NS.Repaint` bound to the
/// entity's type, a v2 import's name), its parameters as typed, and the version of the entity it was invoked on.
/// One on all of a set, or on the service, is invoked on a call's key (``ODataCore/EntityKey/call(on:)``) and named
/// by ``ODataCore/ServiceOperation/queuedName`` (an import's name after a `/`), with no version.
public struct ActionInvocation: Sendable, Hashable {
    public var key: EntityKey
    public var operation: String
    public var parameters: [ODataProperty]
    public var baseEtag: String?

    public init(key: EntityKey, operation: String, parameters: [ODataProperty], baseEtag: String? = nil) {
        self.key = key
        self.operation = operation
        self.parameters = parameters
        self.baseEtag = baseEtag
    }
}

/// An entity the user deleted, and where it was shown, so that it leaves that list at once.
public struct EntityDeletion: Sendable, Hashable {
    public var key: EntityKey
    /// The screen it was deleted from: a stored list, or a parent's relation.
    public var shownIn: ScreenContent?
    /// For a row reached through a link entity (a maintenance record through its ownership): that link, which
    /// leaves the parent's relation (the service deletes it with the entity).
    public var link: EntityKey?
    /// Shown in a parent's many-to-many navigation (`.related(parent, [navigation])`, no link entity between):
    /// only the link between them goes (`$links` / `$ref`), never the entity.
    public var removesLinkOnly: Bool

    public init(key: EntityKey, shownIn: ScreenContent? = nil, link: EntityKey? = nil, removesLinkOnly: Bool = false) {
        self.key = key
        self.shownIn = shownIn
        self.link = link
        self.removesLinkOnly = removesLinkOnly
    }
}

/// A new entity the user made on a screen, and where it was added, so that it shows there at once.
///
/// * On a stored list (`.list`): an entity of the list's set, first in the list until the list is fetched again.
/// * On a parent's relation (`.related(parent, [navigation])`): created through the parent's navigation, which
///   links it.
/// * On a relation reached through link entities (`.related(parent, [link, target])`, a maintenance record
///   under a car's ownership): the entity, then a new link entity joining the parent's `link` navigation and
///   binding it through `target`.
public struct EntityCreation: Sendable, Hashable {
    public var entitySet: String
    public var properties: [ODataProperty]
    public var addedTo: ScreenContent?
    /// Through link entities: what the user typed for the new link entity's own fields (its key, where the
    /// service does not choose one).
    public var linkProperties: [ODataProperty]

    public init(
        entitySet: String, properties: [ODataProperty], addedTo: ScreenContent?, linkProperties: [ODataProperty] = []
    ) {
        self.entitySet = entitySet
        self.properties = properties
        self.addedTo = addedTo
        self.linkProperties = linkProperties
    }
}

/// An existing entity linked to a parent through a new link entity (a car to a second owner): shown at once in
/// the parent's relation `path` (`[link, target]`).
public struct EntityLink: Sendable, Hashable {
    public var parent: EntityKey
    public var path: [String]
    public var target: EntityKey

    public init(parent: EntityKey, path: [String], target: EntityKey) {
        self.parent = parent
        self.path = path
        self.target = target
    }
}

/// What the user decided about a write in the outbox.
public enum OutboxResolution: Sendable, Hashable {
    /// A failed write: send it again as it was.
    case retry
    /// Drop the write; its change leaves the cache.
    case discard
    /// A conflict: send mine again against the service's current version.
    case keepMine
    /// A conflict: take the service's version; mine is dropped.
    case takeTheirs
    /// A failed or conflicting change, edited: send these values instead (against the service's version).
    case resend([ODataProperty])
}

/// What screens that change data tell the fetcher. Fire-and-forget, as ``SyncIntents``: the change is in the
/// cache (optimistic, marked pending) as soon as the fetcher has recorded it, and the screen sees it through
/// its cache observation.
public protocol WriteIntents: Sendable {
    /// An action the service offers, invoked on an entity (queued in the outbox after the writes to it made
    /// before), on all of a set or on the service (queued on its own); sent once (issue 36).
    func invoke(_ invocation: ActionInvocation)
    func save(_ change: EntityChange)
    func create(_ creation: EntityCreation)
    func link(_ link: EntityLink)
    func delete(_ deletion: EntityDeletion)
    func resolve(outboxEntry id: Int64, _ resolution: OutboxResolution)
    /// A form opened on `key`, an active entity of a set edited through drafts, showing version `etag`: its draft
    /// is made (or the user's own resumed) now, as the service's Fiori app does (issue 36). Once there, its copy is
    /// cached under the draft's own key.
    func editDraft(of key: EntityKey, etag: String?)
    /// Values of fields the user left changed in the form on `change.key`: kept in its draft at once.
    func changeDraft(_ change: EntityChange)
    /// The form on `key` was left without saving: its draft is discarded.
    func discardDraft(of key: EntityKey)
}

extension WriteIntents {
    /// (A writer that knows no drafts: a change saved goes through the draft the outbox makes then.)
    public func editDraft(of key: EntityKey, etag: String?) {}
    public func changeDraft(_ change: EntityChange) {}
    public func discardDraft(of key: EntityKey) {}
}

/// A stream saved to a file (`:save FILE`): a media entity's content, or a stream property's.
public struct StreamDownload: Sendable, Hashable {
    /// The entity that holds the stream.
    public var key: EntityKey
    /// Which stream, and what the entity's payload said of it (its read link, when the service gave one).
    public var stream: MediaStream
    /// The file written, as an absolute path; it appears whole or not at all.
    public var path: String
    /// The file as the user named it, for sentences.
    public var shownPath: String

    public init(key: EntityKey, stream: MediaStream, path: String, shownPath: String) {
        self.key = key
        self.stream = stream
        self.path = path
        self.shownPath = shownPath
    }
}

/// `:upload FILE` (issue 37): a file's content to put in place of a stream's, once the user said yes.
public struct StreamUpload: Sendable, Hashable {
    /// The entity that holds the stream.
    public var key: EntityKey
    /// Which stream (the entity's media, or a stream property), and what its payload said of it (its version).
    public var stream: MediaStream
    /// The file read, as an absolute path.
    public var path: String
    /// The file as the user named it, for sentences.
    public var shownPath: String
    /// What the content is (`image/png`), sent as its `Content-Type`.
    public var contentType: String

    public init(key: EntityKey, stream: MediaStream, path: String, shownPath: String, contentType: String) {
        self.key = key
        self.stream = stream
        self.path = path
        self.shownPath = shownPath
        self.contentType = contentType
    }
}

/// What screens ask the fetcher to save or upload: one stream at a time, its progress on the status
/// (the status's `download`). Fire-and-forget, as ``SyncIntents``.
public protocol DownloadIntents: Sendable {
    /// Starts saving a stream (one already under way is cancelled first).
    func download(_ download: StreamDownload)
    /// Starts putting a file's content in place of a stream's on the service (one transfer under way is cancelled
    /// first); the entity is read again once it is done.
    func upload(_ upload: StreamUpload)
    /// Stops the transfer under way; nothing is left of a download's file.
    func cancelDownload()
    /// Asks the service how large a stream of `key` is (a `HEAD` of it): kept with the entity, where its screen
    /// shows it (``MediaStream/length``).
    func measure(_ stream: MediaStream, of key: EntityKey)
}

extension DownloadIntents {
    public func measure(_ stream: MediaStream, of key: EntityKey) {}
}
