import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

/// What every controller needs: the cache to read, the fetcher to inform, and how to present data.
@MainActor
public final class BrowserEnvironment {
    /// Read and observed only: a screen's changes go to ``writes``, which the outbox records.
    public let cache: any CacheReader
    public let intents: any SyncIntents
    /// Where changes made on screens go; nil when this browser does not write (a read-only session).
    public let writes: (any WriteIntents)?
    /// Where `:save` sends a stream to be saved to a file; nil where this browser saves none.
    public var downloads: (any DownloadIntents)?
    public let model: ServiceModel
    public let profile: DisplayProfile
    /// Puts text on the clipboard through the terminal (set by ``BrowserApp``; false when it could not be sent).
    public var clipboard: (String) -> Bool = { _ in false }
    /// Whether charts may draw braille; ASCII otherwise (set from the terminal).
    public var canShowBraille = true
    /// The clock, so that "3 s old" can be tested.
    public var now: () -> Date
    /// Where the user is: times of the user's own events (requests) are shown in it.
    public var timeZone: TimeZone
    /// Body bytes received by this session so far (a "loading…" line says how many arrived since); nil when
    /// not counted.
    public var bytesArrived: () -> Int? = { nil }
    /// Said on the status line before each screen's summary for the whole session: what the user chose that
    /// weakens it (`--insecure`).
    public var standingWarning: String?
    /// Columns the user hid (`-`, `:hide`), by entity set, for every list of that set in this session.
    var hiddenColumns: [String: Set<String>] = [:]
    /// Sets whose search by the service (`$search`) failed this session: `/` filters their fields instead, and says
    /// why once (the value: the service's answer).
    var searchFailed: [String: String] = [:]
    /// Set by ``BrowserApp``: something changed, draw a frame soon.
    var redrawHandler: () -> Void = {}
    /// Set by ``BrowserApp``: pushes a screen that was made after a wait (value help read from another service),
    /// only while the screen that asked for it is still on top; false when it is not.
    var presentHandler: (any ScreenController, AnyObject) -> Bool = { _, _ in false }
    var lastScreenID = 0
    /// The root of the service this session browses (one trailing slash); references in its `$metadata` are
    /// relative to its `$metadata`. Nil where not known (then no other service is opened).
    public var serviceRoot: String?
    /// Opens a service another one names for a property's values (`Common.ValueListReferences`) by its root, for
    /// reading: set by the session; nil where this browser opens none. Its error's description is a sentence.
    public var openService: (@Sendable (String) async throws -> ReferencedService)?
    /// The services opened for value help this session, by root, and those being opened.
    var referencedEnvironments: [String: BrowserEnvironment] = [:]
    var openingServices: Set<String> = []

    public init(
        cache: any CacheReader, intents: any SyncIntents, writes: (any WriteIntents)? = nil, model: ServiceModel,
        profile: DisplayProfile, now: @escaping () -> Date = Date.init, timeZone: TimeZone = .current
    ) {
        self.cache = cache
        self.intents = intents
        self.writes = writes
        self.model = model
        self.profile = profile.completed(for: model)
        self.now = now
        self.timeZone = timeZone
    }

    /// Asks for a frame; many requests within one batch of events make one frame.
    public func setNeedsDisplay() { redrawHandler() }

    /// The screens of a service opened for value help share this session's terminal, clock and frames; their
    /// screen identities are kept apart from this one's (each fetcher knows only its own).
    func environment(for service: ReferencedService) -> BrowserEnvironment {
        if let made = referencedEnvironments[service.root] { return made }
        let made = BrowserEnvironment(
            cache: service.cache, intents: service.intents, writes: nil, model: service.model,
            profile: service.profile, now: now, timeZone: timeZone)
        made.serviceRoot = service.root
        made.redrawHandler = { [weak self] in self?.redrawHandler() }
        made.presentHandler = { [weak self] screen, over in self?.presentHandler(screen, over) ?? false }
        made.clipboard = clipboard
        made.canShowBraille = canShowBraille
        made.bytesArrived = bytesArrived
        made.standingWarning = standingWarning
        made.lastScreenID = (referencedEnvironments.count + 1) * 1_000_000
        referencedEnvironments[service.root] = made
        return made
    }

    /// A fresh identity for a new screen.
    func nextScreenID() -> ScreenID {
        lastScreenID += 1
        return ScreenID(lastScreenID)
    }

    /// The profile of an entity set (always present after ``DisplayProfile/completed(for:)``).
    func setProfile(_ set: String) -> DisplayProfile.SetProfile {
        profile.set(named: set)
            ?? DisplayProfile.SetProfile(title: set, row: nil, orderBy: nil, search: nil, columns: nil, drill: nil)
    }

    /// The label of an entity for rows and breadcrumbs.
    func label(of entity: CachedEntity) -> String {
        let template = setProfile(entity.entitySet).row ?? "{}"
        let text = ValueFormatter.fill(template) { name in entity.properties.first { $0.name == name }?.value }
        return text.isEmpty ? entity.key.canonical : text
    }

    /// The entity set a navigation path from `set` ends in, per `$metadata`.
    func targetSet(from set: String, path: [String]) -> String? {
        var current = set
        for step in path {
            guard let next = model.resolveNavigation(step, fromSet: current)?.targetSet else { return nil }
            current = next
        }
        return current
    }

    /// `14:03:27`, or `2027-01-15 14:03:27 +01:00` with `date`: a moment in the user's time zone.
    func localTime(_ date: Date, withDate: Bool = false) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let clock = two(c.hour) + ":" + two(c.minute) + ":" + two(c.second)
        guard withDate else { return clock }
        let offset = ValueFormatter.offsetText(timeZone.secondsFromGMT(for: date) / 60)
        return String(format: "%04d", c.year ?? 0) + "-" + two(c.month) + "-" + two(c.day) + " " + clock + " " + offset
    }

    /// "just now", "42 s old", "5 min old", "3 h old", "2 d old".
    func age(of date: Date?) -> String? {
        guard let date else { return nil }
        // Marked to be fetched again (a change here the service refused): its age means nothing.
        if date.timeIntervalSince1970 <= 0 { return "changed here · r fetches it again" }
        let seconds = Int(now().timeIntervalSince(date))
        switch seconds {
        case ..<5: return "just now"
        case ..<60: return "\(seconds) s old"
        case ..<3600: return "\(seconds / 60) min old"
        case ..<86_400: return "\(seconds / 3600) h old"
        default: return "\(seconds / 86_400) d old"
        }
    }
}

/// A service opened for reading beside the session's own, because the session's service names it for a property's
/// values (`Common.ValueListReferences`): its model, its cache and the fetcher on that cache.
public struct ReferencedService: Sendable {
    /// Its root, with one trailing slash.
    public var root: String
    public var cache: any CacheReader
    public var intents: any SyncIntents
    public var model: ServiceModel
    public var profile: DisplayProfile

    public init(
        root: String, cache: any CacheReader, intents: any SyncIntents, model: ServiceModel, profile: DisplayProfile
    ) {
        self.root = root
        self.cache = cache
        self.intents = intents
        self.model = model
        self.profile = profile
    }
}

extension BrowserEnvironment {
    /// Copies an entity's name (`asJSON`: the whole entity, every property as plain JSON) to the clipboard;
    /// returns what the status line says about it.
    func yank(_ entity: CachedEntity, asJSON: Bool) -> String {
        let text: String
        let what: String
        if asJSON {
            let whole = (try? cache.fullEntity(entity.key)) ?? nil
            // (what the service said of its streams is kept beside the values, but is none of them)
            text = PlainJSON.object((whole ?? entity).properties.filter { !$0.isInstanceAnnotation })
            // A copy cut to what a list shows is not the whole entity: say so rather than pass it off as one.
            let part = (whole ?? entity).isComplete ? "" : " (only the fields fetched so far)"
            what = "\(entity.key.canonical) as JSON" + part
        } else {
            text = label(of: entity)
            let shown = TextSanitizer.sanitize(text)
            what = "“" + (shown.count > 40 ? shown.prefix(39) + "…" : shown) + "”"
        }
        guard text.utf8.count <= OSC52.maximumBytes else {
            return
                "Not copied: \(text.utf8.count / 1024) KB is more than a terminal takes (\(OSC52.maximumBytes / 1024) KB)."
        }
        guard clipboard(text) else { return "Not copied: the terminal is not ours just now." }
        return "Copied \(what) (a terminal may refuse the clipboard)."
    }
}

extension BrowserEnvironment {
    /// Who edits the draft of `key` and since when, as its `DraftAdministrativeData` cached with it says; nil where
    /// its set keeps no such data or the cache holds none.
    func draftAdministration(of key: EntityKey) -> DraftAdministration? {
        guard let navigation = model.draftAdministration(ofSet: key.entitySet),
            case .known(let related, _)? = try? cache.related(key, navigation: navigation)
        else { return nil }
        return related.first.flatMap { DraftAdministration($0.properties) }
    }
}
