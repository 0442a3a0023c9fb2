import Foundation
import ODataCore

/// One write made here and not yet settled with the service: a row of the outbox.
///
/// The change is already in the cache (optimistic); the entry says what to send, against which ETag, under
/// which request id (the same on every attempt, so a service that honours repeatability applies it once), and
/// how the last attempt went.
public struct OutboxEntry: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable {
        /// Changed properties of an existing entity (v2 `MERGE`).
        case update
        /// The entity goes (`DELETE`).
        case delete
        /// A new entity (`POST`), known here by a temporary key (``EntityKey/temporary(in:)``) until the
        /// service's key replaces it everywhere.
        case create
        /// The link between a parent and this entity through a many-to-many navigation goes (`DELETE` of v2's
        /// `$links`, v4's `$ref`); both entities stay.
        case unlink
        /// An operation the service offers, invoked on this entity (a v4 bound action, a v2 function import that
        /// changes data). Nothing changes here before the service answers; then the entity is read again.
        case action

        /// Sent twice, it would be done twice where the service does not keep request ids: a create, an action.
        public var runsOnce: Bool { self == .create || self == .action }
    }

    /// Its state as the outbox table holds it: SQL in the outbox's queries names a state only through ``State/sql``
    /// and ``State/queuedSQL``, never as a literal of its own.
    public enum State: String, Sendable, Hashable {
        /// Waiting to be sent (again, after `nextAttemptAt` when set).
        case pending
        /// On the wire; after a crash it is sent again under the same request id.
        case sending
        /// The service refused it (a 4xx other than 408, 412, 429): rolled back, kept for the user to edit,
        /// retry or discard.
        case failed
        /// The entity changed on the service since it was read (412): `theirs` holds the service's copy.
        case conflict

        /// The state as an SQL literal (`'pending'`).
        var sql: String { "'" + rawValue + "'" }
        /// The states of a write the fetcher will send, as an SQL list (`('pending', 'sending')`).
        static var queuedSQL: String { "(" + State.pending.sql + ", " + State.sending.sql + ")" }
    }

    /// What a write does, with the fields only that kind of write has (issue 34: no bag of optionals).
    public enum Write: Sendable, Hashable {
        /// Changed properties of an existing entity (`changes`).
        case update
        /// The entity goes; `shownIn`: the list and the relation it left at once (and the member of the relation,
        /// a link entity for a row reached through one), so that a refusal puts them back (they are fetched again).
        case delete(shownIn: ShownIn?)
        /// A new entity (`changes` its properties). `shownIn`: where it was added (its list, or the relation of its
        /// parent it joined, with the link entity it was reached through as `member`), so that it shows there at
        /// once; a create with a parent is sent to the parent's navigation (`POST Parent(k)/Navigation`), which
        /// links it. `binding`: a link entity's, the entity it links. `draft`: the draft the service made of it and
        /// did not activate (a set edited through drafts): sent again, that draft is activated, no second one made.
        case create(shownIn: ShownIn?, binding: Binding?, draft: EntityKey? = nil)
        /// The link between `parent` and this entity through `navigation` goes; both entities stay.
        case unlink(parent: EntityKey, navigation: String)
        /// `operation` (as the service's model finds it, ``ODataCore/ServiceModel/operation(named:boundTo:)``)
        /// invoked on this entity with `changes` as its parameters.
        case action(operation: String)
        /// A row of `kind` without what that kind needs (nothing here writes one): shown, never sent, so that it
        /// neither hides nor holds up the entity's later writes until the user drops it.
        case incomplete(Kind)

        /// Its kind, as the outbox table names it.
        public var kind: Kind {
            switch self {
            case .update: .update
            case .delete: .delete
            case .create: .create
            case .unlink: .unlink
            case .action: .action
            case .incomplete(let kind): kind
            }
        }
    }

    /// A create of a link entity: the navigation through which it links an entity, and that entity (a temporary key
    /// while its own create is not settled: the link waits for it).
    public struct Binding: Sendable, Hashable {
        public var navigation: String
        public var target: EntityKey
        /// Made together with the entity it binds (`a` in a list reached through link entities): when the link is
        /// refused, that entity is on the service linked to nobody.
        public var madeTogether: Bool

        public init(navigation: String, target: EntityKey, madeTogether: Bool = false) {
            self.navigation = navigation
            self.target = target
            self.madeTogether = madeTogether
        }
    }

    /// The order the writes were made in.
    public var id: Int64
    public var entityKey: EntityKey
    public var entitySet: String
    /// What it does, and what only that kind of write has.
    public var write: Write
    /// What the write sets (an action: its parameters).
    public var changes: [ODataProperty]
    /// The entity's values before the write, for rolling back and for the conflict view.
    public var base: [ODataProperty]
    /// The ETag the change was made against (`If-Match`); nil when the service gave none.
    public var baseEtag: String?
    public var requestID: String
    /// When the write was first sent (`Repeatability-First-Sent`).
    public var firstSent: Date?
    public var state: State
    public var attempts: Int
    /// The last failure, as a sentence.
    public var lastError: String?
    /// In a conflict: the service's current copy and its ETag.
    public var theirs: [ODataProperty]?
    public var theirsEtag: String?
    public var createdAt: Date
    public var nextAttemptAt: Date?
    /// An attempt got no answer from a service that keeps no request ids: the write may have been applied then
    /// (kept through a retry).
    public var outcomeUnknown = false

    public var kind: Kind { write.kind }

    /// Where the write shows (or showed) at once: a delete's or a create's place, an unlink's relation.
    public var shownIn: ShownIn? {
        switch write {
        case .delete(let shownIn), .create(let shownIn, _, _): shownIn
        case .unlink(let parent, let navigation): ShownIn(parent: parent, navigation: navigation)
        case .update, .action, .incomplete: nil
        }
    }

    /// A link entity's create: what it binds.
    public var binding: Binding? {
        guard case .create(_, let binding, _) = write else { return nil }
        return binding
    }

    /// A new link entity's bound entity made together with it and already made on the service (the link not yet):
    /// what a refusal of the link would leave there, linked to nobody.
    public var madeWithIt: EntityKey? {
        guard let binding, binding.madeTogether, !binding.target.isTemporary else { return nil }
        return binding.target
    }

    /// Unsettled and not waiting for the user: the fetcher will send it.
    public var isQueued: Bool { state == .pending || state == .sending }
}

/// Where an entity is shown in the cache — a list's row, a relation's child — so that a deleted one leaves there at
/// once and a new one is added there.
public struct ShownIn: Sendable, Hashable {
    /// A stored list it was a row of.
    public var list: ListKey?
    /// A relation it (or `member`, the link entity it was reached through) was a child of.
    public var parent: EntityKey?
    public var navigation: String?
    public var member: EntityKey?

    public init(list: ListKey? = nil, parent: EntityKey? = nil, navigation: String? = nil, member: EntityKey? = nil) {
        self.list = list
        self.parent = parent
        self.navigation = navigation
        self.member = member
    }
}

/// How many writes wait, and how many need the user, for the status line.
public struct OutboxCounts: Sendable, Hashable {
    /// Queued: waiting to be sent, or on their way (``failing`` among them).
    public var pending: Int
    /// Waiting for the user: refused, or in conflict.
    public var failed: Int
    /// Queued writes tried at least ``failingAfter`` times, each answered with a failure worth retrying (a `5xx`
    /// for ever): still kept and tried, but said on the status line with the service's last sentence.
    public var failing: Int
    public var failingError: String?

    /// Tries after which a write retried without end is said to be failing.
    public static let failingAfter = 5

    public init(pending: Int = 0, failed: Int = 0, failing: Int = 0, failingError: String? = nil) {
        self.pending = pending
        self.failed = failed
        self.failing = failing
        self.failingError = failingError
    }
}
