import Dispatch
import EntityCache
import Foundation
import ScreenSeam
import Terminal

/// The browser: a navigation stack on a terminal, one frame per batch of events.
///
/// Keys and wake-ups arrive in batches (``handle(_:)``); cache observations and the
/// activity indicator ask for frames through the environment, and many requests in
/// one turn of the main queue make one frame. Nothing is drawn while idle, and the
/// terminal driver sends only the cells that changed.
@MainActor
public final class BrowserApp {
    public let stack: NavigationStack
    public let terminal: any TerminalDriver
    let environment: BrowserEnvironment
    var status: SyncStatus?
    var statusObservation: CacheObservation?
    /// Changes made here not yet on the service, for the status line.
    var outbox = OutboxCounts()
    var outboxObservation: CacheObservation?
    var spinnerTimer: DispatchSourceTimer?
    var spinnerPhase = 0
    /// Whether the status line shows the requests in flight (only after ``activityDelay``).
    var activityVisible = false
    var needsDisplay = true
    var frameScheduled = false
    /// Called after every presented frame (for `--trace` and tests).
    public var onFrame: ((ScreenBuffer) -> Void)?
    /// Called with the keys of each batch before they are handled (for `--trace`).
    public var onKeys: (([Key]) -> Void)?
    public private(set) var framesPresented = 0
    /// The `:` command line.
    let palette: CommandPalette
    /// What the last command said (shown on the status line until the next key).
    var commandMessage: String?
    /// The last download whose ending was said.
    var downloadSaid: Int?
    /// The upload `:upload` asked about; the next key answers (``answerUpload(_:)``).
    var pendingUpload: StreamUpload?
    /// Keys bound by a config file to stand for other keys (see ``bind(_:)``).
    var keymap = Keymap()
    /// The last click's row and time, for double clicks.
    var lastClick: (row: Int, at: ContinuousClock.Instant)?

    public init(terminal: any TerminalDriver, environment: BrowserEnvironment, root: any ScreenController) {
        self.terminal = terminal
        self.environment = environment
        stack = NavigationStack(environment: environment, root: root)
        palette = CommandPalette(
            entitySets: environment.model.entitySets.map(\.name),
            operations: environment.model.unboundOperations.map(\.name))
        environment.redrawHandler = { [weak self] in self?.setNeedsDisplay() }
        environment.presentHandler = { [weak self] screen, over in
            guard let self, self.stack.top === over else { return false }
            self.stack.push(screen)
            return true
        }
        environment.clipboard = { [weak terminal] text in terminal?.copyToClipboard(text) ?? false }
        environment.canShowBraille = terminal.canShowBraille
        stack.onCommandKey = { [weak self] in
            guard let self else { return }
            let list = self.stack.top as? EntityListController
            self.palette.filterFields = list?.filterFields ?? []
            self.palette.filterValues = { [weak list] field in list?.filterValues(forField: field) ?? [] }
            self.palette.open()
        }
        status = try? environment.cache.syncStatus()
        statusObservation = environment.cache.observeSyncStatus { [weak self] status in
            self?.statusChanged(status)
        }
        outbox = (try? environment.cache.outboxCounts()) ?? OutboxCounts()
        outboxObservation = environment.cache.observeOutboxCounts { [weak self] counts in
            guard let self, self.outbox != counts else { return }
            self.outbox = counts
            self.setNeedsDisplay()
        }
        // The data age on the status line ("3 min old") is worked out when a frame is drawn; while idle, once a
        // minute is often enough. A frame whose cells did not change sends nothing.
        let ageTimer = DispatchSource.makeTimerSource(queue: .main)
        ageTimer.schedule(deadline: .now() + .seconds(60), repeating: .seconds(60), leeway: .seconds(5))
        ageTimer.setEventHandler { [weak self] in
            MainActor.assumeIsolated { self?.setNeedsDisplay() }
        }
        ageTimer.resume()
        self.ageTimer = ageTimer
    }

    /// Redraws once a minute so that the data age does not go stale while nobody presses a key.
    var ageTimer: DispatchSourceTimer?

    /// Handles one batch of terminal events and draws one frame. Returns false when the user quit.
    public func handle(_ events: [TerminalEvent]) -> Bool {
        if let onKeys {
            let keys = events.compactMap { event -> Key? in if case .key(let key) = event { key } else { nil } }
            if !keys.isEmpty { onKeys(keys) }
        }
        for event in events {
            guard case .key(var key) = event else { continue }
            if !keymap.isEmpty, !isTypingText {
                guard let translated = keymap.translate(key) else { continue }
                key = translated
            }
            if key == .resize {
                needsDisplay = true
                continue
            }
            commandMessage = nil
            if pendingUpload != nil {
                needsDisplay = true
                answerUpload(key)
                continue
            }
            if case .click(let row, let column) = key, !palette.isOpen {
                click(row: row, column: column)
                continue
            }
            if palette.isOpen {
                needsDisplay = true
                switch palette.handle(key) {
                case .run(let line): if !run(line) { return false }
                case .valueHelp(let line): filterValueHelp(line)
                case .editing, .closed: break
                }
                continue
            }
            if key == .escape, status?.download?.state == .running, let downloads = environment.downloads,
                stack.top is EntityDetailController || (stack.top as? EntityListController)?.escapeGoesBack == true
            {
                // (Esc stops a download before it goes back; a form, a filter line or an export keeps its own Esc)
                downloads.cancelDownload()
                continue
            }
            if !stack.handle(key) { return false }
            if palette.isOpen { needsDisplay = true }
        }
        presentIfNeeded()
        return true
    }

    /// Stops observing and closes every screen.
    public func shutdown() {
        statusObservation?.cancel()
        outboxObservation?.cancel()
        spinnerTimer?.cancel()
        spinnerTimer = nil
        ageTimer?.cancel()
        ageTimer = nil
        stack.closeAll()
    }

    func setNeedsDisplay() {
        needsDisplay = true
        guard !frameScheduled else { return }
        frameScheduled = true
        DispatchQueue.main.async { [weak self] in
            MainActor.assumeIsolated {
                self?.frameScheduled = false
                self?.presentIfNeeded()
            }
        }
    }

    /// Draws a frame if anything asked for one since the last.
    public func presentIfNeeded() {
        guard needsDisplay else { return }
        needsDisplay = false
        let size = terminal.size
        if let content = Self.contentArea(size) {
            stack.top.layout(rows: content.rows, columns: content.columns)
            stack.top.update()
        }
        let frame = render(size: size)
        terminal.present(frame)
        framesPresented += 1
        onFrame?(frame)
    }

    /// The screens' area of a terminal of `size` (between breadcrumb and status line); nil when too small.
    static func contentArea(_ size: TerminalSize) -> (rows: Int, columns: Int)? {
        guard size.rows >= 4, size.columns >= 16 else { return nil }
        return (size.rows - 2, size.columns)
    }

    /// The whole frame for a terminal of `size`, drawn from what the last layout and update left.
    public func render(size: TerminalSize) -> ScreenBuffer {
        var buffer = ScreenBuffer(size: size)
        guard Self.contentArea(size) != nil else {
            let messages = ["CarDealer: window too small (\(size))", "window too small", "too small", "small"]
            let message = messages.first { DisplayWidth.width(of: $0) <= size.columns } ?? ""
            if size.rows > 0 { buffer.put(message, row: 0, column: 0) }
            return buffer
        }
        let top = stack.top
        Chrome.drawBreadcrumb(stack.breadcrumb, kind: top.kindTitle, into: &buffer)
        top.render(into: &buffer, rows: 1..<(size.rows - 1))
        Chrome.drawStatus(
            status: status, outbox: Self.outboxNote(outbox, online: status?.isOnline ?? true),
            summary: commandMessage ?? runningDownload
                ?? (environment.standingWarning.map { $0 + " · " } ?? "") + top.statusSummary,
            spinnerPhase: activityVisible ? spinnerPhase : nil,
            into: &buffer)
        if palette.isOpen { palette.render(into: &buffer, completionRows: min(8, size.rows - 3)) }
        return buffer
    }

    /// What the outbox holds, for the status line: `2 pending, 1 to resolve (o)`; writes retried without end are
    /// `failing`, with the service's last sentence, while it answers (offline, they are pending like the rest).
    static func outboxNote(_ outbox: OutboxCounts, online: Bool) -> (text: String, failing: Bool)? {
        let failing = online ? outbox.failing : 0
        var counts: [String] = []
        if outbox.pending - failing > 0 { counts.append("\(outbox.pending - failing) pending") }
        if outbox.failed > 0 { counts.append("\(outbox.failed) to resolve (o)") }
        if failing > 0 { counts.append("\(failing) failing (o): " + (outbox.failingError ?? "")) }
        return counts.isEmpty ? nil : (counts.joined(separator: ", "), failing > 0)
    }

    func statusChanged(_ newStatus: SyncStatus) {
        let wasShowingActivity = activityVisible
        if let download = newStatus.download, download != status?.download {
            // (how a download ended is said once, until the next key; while it runs, the status line follows it)
            if download.state != .running, download.id != downloadSaid {
                downloadSaid = download.id
                commandMessage = Self.sentence(for: download)
            }
            setNeedsDisplay()
        }
        status = newStatus
        if newStatus.inFlight > 0 { startSpinner() } else { stopSpinner() }
        // While the indicator is hidden, a change in the number of requests alone changes nothing on screen.
        if activityVisible || wasShowingActivity || newStatus.inFlight == 0 { setNeedsDisplay() }
    }

    /// The activity indicator shows once requests have been in flight for ``activityDelay`` and then turns at
    /// 4 Hz: a fetch that answers sooner (most, on a good link) costs no frame, no spinner blinking on every row
    /// over SSH.
    func startSpinner() {
        guard spinnerTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + Self.activityDelay, repeating: .milliseconds(250))
        timer.setEventHandler { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                if self.activityVisible { self.spinnerPhase += 1 }
                self.activityVisible = true
                self.setNeedsDisplay()
            }
        }
        spinnerTimer = timer
        timer.resume()
    }

    /// How long requests must be in flight before the status line says so.
    static let activityDelay: DispatchTimeInterval = .milliseconds(300)

    func stopSpinner() {
        spinnerTimer?.cancel()
        spinnerTimer = nil
        activityVisible = false
    }

    /// A click: on the breadcrumb, back to that level; in the screen's area, the screen's (select, open on a
    /// double click).
    func click(row: Int, column: Int) {
        let now = ContinuousClock.now
        let double = lastClick.map { $0.row == row && now - $0.at < .milliseconds(400) } ?? false
        lastClick = double ? nil : (row, now)
        let size = terminal.size
        if row == 0 {
            if let level = Chrome.breadcrumbLevel(
                atColumn: column, crumbs: stack.breadcrumb, kind: stack.top.kindTitle, width: size.columns),
                level < stack.controllers.count - 1
            {
                stack.pop(toLevel: level)
            }
        } else if row < size.rows - 1, Self.contentArea(size) != nil {
            stack.perform(stack.top.click(row: row - 1, column: column, double: double))
        }
        setNeedsDisplay()
    }

    /// F4 in the palette: the value list of the field a `:filter` clause names, to pick from; the palette comes back
    /// with the chosen value in place (or with the line as it was, and the reason, when there is none).
    func filterValueHelp(_ line: String) {
        guard let list = stack.top as? EntityListController else {
            palette.open(with: line)
            palette.note = "F4 lists a field's values in a list's :filter."
            return
        }
        let reopen: @MainActor (String, String?) -> Void = { [weak self] chosen, note in
            self?.palette.open(with: chosen)
            self?.palette.note = note
        }
        // (a value help another service lists, read meanwhile: shown if the palette still waits on that line)
        let whenRead: @MainActor (Result<any ScreenController, ValueHelpRefusal>) -> Void = {
            [weak self, weak list] outcome in
            guard let self, let list else { return }
            let waiting = palette.isOpen && palette.text == line && (stack.top as? EntityListController) === list
            switch outcome {
            case .success(let picker) where waiting:
                palette.close()
                stack.push(picker)
            case .success: list.notice = "The value help is ready: F4 in :filter lists it."
            case .failure(let refusal) where waiting: palette.note = refusal.sentence
            case .failure(let refusal): list.notice = refusal.sentence
            }
            needsDisplay = true
        }
        switch list.filterValueHelp(line: line, reopen: reopen, whenRead: whenRead) {
        case .success(let picker): stack.push(picker)
        case .failure(let refusal):
            palette.open(with: line)
            palette.note = refusal.sentence
        }
    }

    /// Runs a command line from the palette; false when it asked to quit.
    func run(_ line: String) -> Bool {
        switch palette.parse(line) {
        case .quit:
            return false
        case .key(let key):
            return stack.handle(key)
        case .open(let set):
            stack.push(EntityListController(environment: environment, entitySet: set))
        case .filter(let text):
            if let list = stack.top as? EntityListController, let said = list.setCondition(text) {
                if let said { commandMessage = said }
            } else if let screen = stack.top as? FilterableScreen {
                screen.setFilter(text)
            } else {
                commandMessage = "This screen has no filter."
            }
        case .chart(let y, let x):
            guard let list = stack.top as? EntityListController else {
                commandMessage = "Charts are of lists: open one first."
                break
            }
            // (a value help's list is another service's: its chart reads that service's cache)
            switch ChartController.named(y: y, x: x, for: list, in: list.environment) {
            case .success(let chart): stack.push(chart)
            case .failure(let reason): commandMessage = reason.message
            }
        case .typeCast(let name):
            guard let list = stack.top as? EntityListController else {
                commandMessage = "Only a list narrows to a type: open one first."
                break
            }
            switch list.typeCast(to: name) {
            case .success(let narrowed): stack.push(narrowed)
            case .failure(let refusal): commandMessage = refusal.sentence
            }
        case .where:
            let path = stack.breadcrumb.joined(separator: " › ")
            let copied = environment.clipboard(path)
            commandMessage = "Here: \(path)" + (copied ? " (copied)" : "")
        case .export(let path):
            guard let list = stack.top as? EntityListController else {
                commandMessage = "Only a list can be exported: open one first."
                break
            }
            commandMessage = list.export(to: path)
        case .save(let path):
            commandMessage = saveStream(to: path)
        case .upload(let path):
            commandMessage = askToUpload(from: path)
        case .sort(let column, let descending):
            let list = stack.top as? EntityListController
            commandMessage =
                list?.sort(byColumn: column, descending: descending) ?? "Only a list sorts: open one first."
        case .invoke(let name):
            // As Enter on it in `!`'s list, without that list on the way back.
            // (the session's operations: on a value help's list, another service's, none of them is bound to it)
            let top = (stack.top as? EntityListController).flatMap { $0.environment === environment ? $0 : nil }
            let set = top?.shownSet ?? ""
            let operations = OperationsController(
                environment: environment, set: set, entity: nil, breadcrumb: "Operations")
            guard let entry = operations.entries.first(where: { $0.operation.name == name && !$0.operation.isBound })
            else {
                commandMessage = "The service offers no \(name) here."
                break
            }
            // (an action asks before it is queued, on the operations screen: that screen comes too, under its form)
            let isAction = entry.operation.kind == .action
            switch operations.invoke(entry) {
            case .replace(let screen), .push(let screen):
                if isAction { stack.push(operations) }
                stack.push(screen)
            default:
                if isAction, operations.confirming != nil {
                    stack.push(operations)
                } else {
                    commandMessage = operations.message
                }
            }
        case .deleteEntity:
            if let list = stack.top as? EntityListController {
                list.askToDeleteEntity()
            } else {
                commandMessage = "Only a list's row can be deleted this way: open a list first."
            }
        case .hide(let name):
            let list = stack.top as? EntityListController
            commandMessage = list?.hideColumn(named: name) ?? "Columns are a list's: open one first."
        case .show(let name):
            let list = stack.top as? EntityListController
            commandMessage = list?.showColumns(named: name) ?? "Columns are a list's: open one first."
        case .theme(let name):
            if let theme = Theme(rawValue: name.lowercased()) {
                terminal.setTheme(theme)
                commandMessage = "Theme: \(theme.rawValue)"
            } else {
                commandMessage =
                    "No theme “\(name)”: " + Theme.allCases.map(\.rawValue).joined(separator: ", ") + "."
            }
        case .unknown(let text):
            commandMessage = "Not a command: “\(text)”. Press : then Tab to see them, or ? for help."
        }
        setNeedsDisplay()
        return true
    }
}
