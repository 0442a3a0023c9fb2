import Dispatch
import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

/// A list of entities: an entity set (windowed over a stored query result) or the
/// entities behind a navigation path of one entity (a person's cars through `PersonCar`).
///
/// Reads only the cache. On appear and whenever the visible rows leave what it has
/// read, it reads the window synchronously (≤ 1 ms) so the next frame already shows
/// cached rows, then observes that window for changes. It tells the fetcher what is
/// visible and where the cursor rests; rows not cached yet show as `loading…`.
@MainActor
public final class EntityListController: ScreenController, FilterableScreen {
    public let screenID: ScreenID
    /// The entity the crumb names (the row drilled from, or a deep link's parent): its label is read again from
    /// the cache when the screen is laid out (once per frame of its own, not for every crumb of every frame), so a
    /// rename, or an entity that arrives after a cold deep link, shows.
    let crumbEntity: EntityKey?
    /// The crumb as last read.
    public private(set) var breadcrumb: String

    /// Reads the crumb's entity again (from ``layout(rows:columns:)``).
    func refreshBreadcrumb() {
        guard let crumbEntity, let entity = (try? environment.cache.entity(crumbEntity)) ?? nil else { return }
        breadcrumb = environment.label(of: entity)
    }
    public let kindTitle: String
    let environment: BrowserEnvironment
    /// Where the rows come from: a stored list or a relation (never `.entity`).
    let source: ScreenContent
    /// The entity set of the entities shown (nil when `$metadata` cannot tell).
    let shownSet: String?
    /// The derived type this list shows only, when it is a type-cast list (`:type`; worked out once, not per row).
    let castType: EntityType?

    var cursor = ListCursor()
    var filter = ListFilter()
    /// The request the rows come from now: the base list, or its server-filtered variant.
    var activeRequest: ListRequest?
    /// The rows read from the cache, and what is shown where (``ListRows``).
    var rowModel = ListRows()
    var observation: CacheObservation?
    /// Why a related list's fetch failed (the fetcher's record for `parent/navigation`), and its observation.
    var relatedFailure: String?
    /// When the related list shown was fetched (its data age on the status line).
    var relatedFetchedAt: Date?
    var failureObservation: CacheObservation?
    /// What the fetcher was told of this screen, and the rest to come (``FetcherTold``).
    var told = FetcherTold()
    /// After `a`: the new rows' temporary keys already shown when the form was opened; the cursor goes to the
    /// first new one that shows (then this is nil).
    var awaitingNewRow: Set<EntityKey>?
    /// The delete (of an entity, or of the link a row was reached through) waiting for a yes, and the question.
    var confirmingDelete: (deletion: EntityDeletion, question: String)?
    /// A list to pick an entity from (to link, or a value help's): what Enter does with it (``Picking``).
    var picking: Picking?
    /// How the columns are sorted, scrolled and sized (``ListColumnState``).
    var columnState = ListColumnState()
    /// A sentence for the status line after a key could not do what it does (shown until the next key).
    var notice: String?
    /// The session's byte count when this list was first drawn loading (for "loading… 12.0 KB arrived").
    var loadingBaseline: Int?
    /// How far the filter's search reaches (``SearchReach``), as `arrangeList` last worked it out.
    var searchReach = SearchReach()
    /// `:export` fetching the rows not cached yet (shown on the filter line; Esc cancels).
    var exporting: ListExport?
    /// The rows the last frame drew, by position (see ``drawRow(_:on:columns:widths:into:drawn:)``).
    var drawnRows: [Int: DrawnRow] = [:]
    /// Who edits the draft of each row shown that has one (a set edited through drafts), read from the cache before
    /// the frame that shows it: its "has a draft" cell says who (`ALICE`, `yours`).
    var draftHolders: [EntityKey: String] = [:]
    /// Rows copied from the frame before instead of drawn again, since the screen opened.
    var rowsCopied = 0

    public init(
        environment: BrowserEnvironment, source: ScreenContent, breadcrumb: String, kindTitle: String,
        crumbEntity: EntityKey? = nil
    ) {
        self.environment = environment
        self.source = source
        self.breadcrumb = breadcrumb
        self.crumbEntity = crumbEntity
        self.kindTitle = kindTitle
        self.screenID = environment.nextScreenID()
        // A guess until the first frame says how many rows fit, so the first read covers a screenful.
        cursor.setPageSize(40)
        switch source {
        case .list(let request):
            castType = Self.cast(of: request, model: environment.model)
            shownSet =
                request.path.segments.count == 1 || castType != nil
                ? environment.model.listedSet(ofSegment: request.path.segments[0].name)
                    ?? request.path.segments[0].name : nil
            activeRequest = request
        case .related(let parent, let path):
            castType = nil
            shownSet = environment.targetSet(from: parent.entitySet, path: path)
        case .entity, .call:
            preconditionFailure("a list shows a stored list or a relation; one answer is a screen of its own")
        }
    }

    /// A root list of an entity set, ordered as the profile says.
    public convenience init(environment: BrowserEnvironment, entitySet: String) {
        let profile = environment.setProfile(entitySet)
        let orderBy = (profile.orderBy ?? []).map { item -> QueryOptions.OrderItem in
            let parts = item.split(separator: " ")
            return QueryOptions.OrderItem(String(parts.first ?? ""), descending: parts.count > 1 && parts[1] == "desc")
        }
        self.init(
            environment: environment, source: .list(ListRequest(entitySet: entitySet, orderBy: orderBy)),
            breadcrumb: profile.title ?? entitySet, kindTitle: profile.title ?? entitySet
        )
    }

    public func willAppear() {
        reload()
    }

    public func didAppear() {
        announceVisible(force: true)
        scheduleRest()
    }

    public func didDisappear() {
        observation?.cancel()
        observation = nil
        failureObservation?.cancel()
        failureObservation = nil
        told.restWork?.cancel()
        told.restWork = nil
    }

    public func refresh() {
        environment.intents.refresh(screen: screenID)
    }

    /// What the fetcher is told this screen shows.
    var content: ScreenContent {
        switch source {
        case .list: .list(activeRequest!)
        case .related, .entity, .call: source
        }
    }

    /// Number of rows the screen can show now (filtered when a filter applies).
    var rowCount: Int { rowModel.count }

    /// The row at a display position.
    func row(at position: Int) -> ListRow? { rowModel.row(at: position) }

    /// Whether the data behind the screen has arrived at all.
    var isKnown: Bool {
        switch source {
        case .list: rowModel.isKnown(related: false)
        case .related, .entity, .call: rowModel.isKnown(related: true)
        }
    }
}

/// What a list last told the fetcher (what it shows, where the cursor rests) and the rest it waits to tell.
struct FetcherTold {
    /// The rest to tell once the cursor has stayed put a moment.
    var restWork: DispatchWorkItem?
    /// The row the fetcher was last told the cursor rests on (cache key of its anchor).
    var restedOn: EntityKey?
    /// The position of the last rest, for the direction the cursor travels.
    var restedAt: Int?
    /// Landing rows worked out at rests (nil: the next screen is not cached), while the cache has not changed
    /// since (``CacheDatabase/changeCount``): a cursor going to and fro reads each next screen once.
    var landings: (changeCount: UInt64, byDrill: [LandingKey: EntityKey?]) = (0, [:])
    /// What the screen showed when it was last announced.
    var lastAnnounced: (content: ScreenContent, visible: Range<Int>)?
}

/// How far a list's `/` search reaches, said beside the filter; set by `arrangeList`, from the list state it reads.
struct SearchReach {
    /// The filter is too short to ask the service and the list is not wholly cached: only the rows in the cache are
    /// searched (the status line says so).
    var cachedRowsOnly = false
    /// The service filters by none of the fields `/` searches (`Capabilities.FilterRestrictions`, `sap:filterable`):
    /// the rows cached answer whatever the filter's length.
    var refused = false
    /// The fields `/` searches that the service was not asked to filter by (it does not).
    var unsearchedFields: [String] = []
    /// The service searches the set itself (`$search`): it, not the fields, decides what matches.
    var byService = false
    /// When the service was asked that search (a failure recorded before then is not its answer).
    var askedAt: Date?
}

/// How a list's columns are shown, as the user and the rows drawn so far left them.
struct ListColumnState {
    /// `s`: the column the user sorts by and its direction (nil: the profile's order).
    var sort: (column: Int, descending: Bool)?
    /// The first column shown: `>` scrolls a table wider than the terminal sideways, `<` back.
    var offset = 0
    /// The width of the last layout (for `>`, which scrolls only while columns are cut).
    var laidOutWidth = 80
    /// Without a profile: the columns `$metadata` gives, worked out once.
    var derived: [DisplayProfile.Column]?
    /// Without a profile: the widest value drawn in each column so far (by title).
    var seenWidths: [String: Int] = [:]
    /// The rows (their key and properties, hashed) whose widths are in ``seenWidths``: a frame notes only rows it
    /// has not seen as they are (drawing the same rows again, or coming back to the list, measures nothing).
    var notedRows: Set<Int> = []
}

/// What a list opened to pick an entity does with it: Enter hands the selected entity to ``take`` and the list closes;
/// the status line says ``title``. Entities already linked where the pick would link are marked ✓, and Enter on one
/// says ``alreadyLinkedNote`` instead.
struct Picking {
    var title: String
    var take: @MainActor (CachedEntity) -> Void
    var alreadyLinked: Set<EntityKey> = []
    var alreadyLinkedNote = ""
}

extension ListRow {
    init(position: Int) {
        self.init(position: position, shown: nil, link: nil)
    }
}
