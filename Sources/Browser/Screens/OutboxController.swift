import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

/// The `o` screen: every change made here that the service has not settled — queued, failed or in conflict —
/// in the order made, with what it does, its state, attempts and the service's message.
///
/// Enter shows one change field by field (for a conflict: the value I started from, mine and theirs). On a
/// failed change `r` sends it again and `x` drops it (its change leaves the cache); on a conflict `m` keeps mine
/// (sent again against their version) and `t` takes theirs; `e` edits a failed or conflicting change (on the
/// service's version, with mine filled in) and sends the result in its place. `x` asks first.
@MainActor
public final class OutboxController: ScreenController {
    public let screenID: ScreenID
    public let breadcrumb = "Outbox"
    public let kindTitle = "Changes not yet on the service"
    let environment: BrowserEnvironment
    var entries: [OutboxEntry] = []
    var cursor = ListCursor()
    var observation: CacheObservation?
    /// The entry whose discard waits for a yes.
    var confirmingDiscard: Int64?
    /// `x` was pressed on a change on its way to the service: said until the next key.
    var notDroppable = false

    init(environment: BrowserEnvironment) {
        self.environment = environment
        self.screenID = environment.nextScreenID()
    }

    public func willAppear() {
        show((try? environment.cache.outboxEntries()) ?? [])
        observation = environment.cache.observeOutbox { [weak self] entries in self?.show(entries) }
    }

    /// What the outbox holds now.
    func show(_ entries: [OutboxEntry]) {
        self.entries = entries
        cursor.setCount(entries.count)
        environment.setNeedsDisplay()
    }

    public func didDisappear() {
        observation?.cancel()
        observation = nil
    }

    public var statusSummary: String {
        if notDroppable {
            return "This change is on its way to the service: it can be dropped if the service refuses it"
        }
        if let id = confirmingDiscard {
            if let entry = entries.first(where: { $0.id == id }), let made = Self.leftLinkedToNobody(entry) {
                return
                    "Drop this \(entry.entitySet) and delete \(made.canonical) from the service? y does, any other key "
                    + "keeps them"
            }
            return "Drop this change? y drops it, any other key keeps it"
        }
        let waiting = entries.filter { !$0.isQueued }.count
        guard !entries.isEmpty else { return "nothing waiting" }
        // Only what the selected change can take.
        var keys: [String] = []
        if let entry = entries[safe: cursor.selected] {
            if entry.state == .failed { keys.append("r retry") }
            if editable(entry) { keys.append("e edit") }
            if entry.state != .sending { keys.append("x drop") }
            if entry.state == .conflict { keys += ["m mine", "t theirs"] }
        }
        return (["\(entries.count - waiting) queued", "\(waiting) need you"] + keys).joined(separator: " · ")
    }

    /// A refused link made together with the entity it links: that entity, on the service and linked to nobody.
    static func leftLinkedToNobody(_ entry: OutboxEntry) -> EntityKey? {
        entry.state == .failed ? entry.madeWithIt : nil
    }

    /// Whether `e` edits the change: a failed or conflicting update, or a refused create (with what was typed).
    func editable(_ entry: OutboxEntry) -> Bool {
        switch entry.kind {
        case .update: entry.state == .conflict || entry.state == .failed
        case .create: entry.state == .failed
        case .delete, .unlink, .action: false
        }
    }

    public func layout(rows: Int, columns: Int) {
        cursor.setPageSize(rows - 1)
    }

    public func handle(_ key: Key) -> ScreenAction {
        defer { environment.setNeedsDisplay() }
        notDroppable = false
        if let id = confirmingDiscard {
            confirmingDiscard = nil
            if key == .char("y") || key == .char("Y") { environment.writes?.resolve(outboxEntry: id, .discard) }
            return .handled
        }
        if key == .char("o") { return .pop }
        if cursor.apply(key) { return .handled }
        guard cursor.selected < entries.count else { return .ignored }
        let entry = entries[cursor.selected]
        switch key {
        case .enter, .right, .char("l"):
            return .push(
                TextViewController(
                    environment: environment, text: describe(entry), breadcrumb: Self.target(of: entry),
                    kindTitle: "Change"
                ))
        case .char("r") where entry.state == .failed:
            environment.writes?.resolve(outboxEntry: entry.id, .retry)
        case .char("m") where entry.state == .conflict:
            environment.writes?.resolve(outboxEntry: entry.id, .keepMine)
        case .char("t") where entry.state == .conflict:
            environment.writes?.resolve(outboxEntry: entry.id, .takeTheirs)
        case .char("e") where editable(entry):
            return (entry.kind == .create ? createForm(entry) : editForm(entry)).map(ScreenAction.push) ?? .handled
        case .char("x"), .delete:
            if entry.state == .sending { notDroppable = true } else { confirmingDiscard = entry.id }
        default:
            return .ignored
        }
        return .handled
    }

    public func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        guard rows.count >= 2 else { return }
        let header = CellStyle([.bold], role: .header)
        buffer.fill(row: rows.lowerBound, style: header)
        var column = SelectionGutter.width
        for (title, width) in [("state", 9), ("tries", 5), ("entity", 24)] {
            column = buffer.put(title, row: rows.lowerBound, column: column, width: width, style: header) + 1
        }
        buffer.put("change", row: rows.lowerBound, column: column, style: header)
        guard !entries.isEmpty else {
            buffer.put(
                "Every change made here is on the service.", row: rows.lowerBound + 1, column: 1,
                style: CellStyle(role: .muted))
            return
        }
        for (offset, index) in cursor.visible.enumerated() where rows.lowerBound + 1 + offset < rows.upperBound {
            let line = rows.lowerBound + 1 + offset
            let entry = entries[index]
            SelectionGutter.draw(selected: index == cursor.selected, line: line, into: &buffer)
            let role: ColorRole = entry.isQueued ? .normal : .error
            var column = SelectionGutter.width
            for (text, width) in [
                (Self.stateText(entry), 9), (String(entry.attempts), 5), (Self.target(of: entry), 24),
            ] {
                column = buffer.put(text, row: line, column: column, width: width, style: CellStyle(role: role)) + 1
            }
            let summary = summarize(entry) + (entry.lastError.map { "  — " + $0 } ?? "")
            buffer.put(
                summary, row: line, column: column, width: max(0, buffer.size.columns - column),
                style: CellStyle(role: role))
        }
    }

    /// A form on the service's version (theirs, for a conflict) with my values in it: what is saved replaces the
    /// change and is sent again.
    func editForm(_ entry: OutboxEntry) -> EditFormController? {
        let below = entry.theirs ?? (try? environment.cache.fullEntity(entry.entityKey))?.properties ?? entry.base
        let theirs = CachedEntity(
            key: entry.entityKey, entitySet: entry.entitySet, type: nil, properties: below, etag: entry.theirsEtag,
            fetchedAt: Date())
        let form = EditFormController(environment: environment, entity: theirs, breadcrumb: entry.entityKey.canonical)
        return form.map { resending(entry, in: $0) }
    }

    /// A refused create's form, with what was typed in it: what is saved is sent in its place.
    func createForm(_ entry: OutboxEntry) -> EditFormController? {
        // (one of a derived type: its own fields, and its type kept on what is sent again)
        let derived = entry.changes.statedType.flatMap { environment.model.entityTypes[$0] }
        let form = EditFormController(
            environment: environment, creatingIn: entry.entitySet, addedTo: nil, breadcrumb: entry.entitySet,
            of: derived)
        return form.map { resending(entry, in: $0) }
    }

    /// `form` with the entry's values typed into it, whose save sends them in the entry's place.
    func resending(_ entry: OutboxEntry, in form: EditFormController) -> EditFormController {
        for index in form.fields.indices {
            guard let typed = entry.changes.first(where: { $0.name == form.fields[index].input.name }) else { continue }
            form.fields[index].text = FieldInput.text(of: typed.value)
            form.fields[index].caret = form.fields[index].text.count
        }
        let id = entry.id
        let writes = environment.writes
        form.onSave = { changes in writes?.resolve(outboxEntry: id, .resend(changes)) }
        return form
    }

    static func stateText(_ entry: OutboxEntry) -> String {
        switch entry.state {
        case .pending: entry.nextAttemptAt == nil ? "queued" : "retrying"
        case .sending: "sending"
        case .failed: "failed"
        case .conflict: "conflict"
        }
    }

    /// An action's name as recorded, without the `/` that marks an import.
    static func shown(_ operation: String) -> String {
        operation.hasPrefix("/") ? String(operation.dropFirst()) : operation
    }

    /// What a write is made on: its entity's key, or, for an action on a list or on the service, that.
    static func target(of entry: OutboxEntry) -> String {
        guard entry.entityKey.isCall else { return entry.entityKey.canonical }
        return entry.entityKey.callSet.map { "all " + TextSanitizer.sanitize($0) } ?? "the service"
    }

    /// `model: Focus → Fiesta, make: Ford → FORD`; a new link: what it links.
    func summarize(_ entry: OutboxEntry) -> String {
        switch entry.write {
        case .unlink(let parent, let navigation):
            return "no longer in \(parent.canonical)/\(navigation) (it stays)"
        case .action(let operation):
            let parameters = entry.changes.map { "\($0.name): \(ValueFormatter.format($0.value))" }
            return TextSanitizer.sanitize(Self.shown(operation)) + "(" + parameters.joined(separator: ", ") + ")"
        case .update, .delete, .create, .incomplete:
            break
        }
        let linked =
            entry.binding.map(\.target).map {
                ["links " + ($0.isTemporary ? "the new \($0.entitySet)" : $0.canonical)]
            } ?? []
        return
            (linked
            + entry.changes.map { change in
                let before = entry.base.first { $0.name == change.name }.map { ValueFormatter.format($0.value) } ?? "–"
                return "\(change.name): \(before) → \(ValueFormatter.format(change.value))"
            }).joined(separator: ", ")
    }

    /// One change in full, field by field; a conflict shows base, mine and theirs.
    func describe(_ entry: OutboxEntry) -> String {
        var lines = [
            "Entity     " + Self.target(of: entry),
            "Change     " + entry.kind.rawValue + " (" + Self.stateText(entry) + ")",
            "Made       " + environment.localTime(entry.createdAt, withDate: true),
            "Attempts   " + String(entry.attempts),
            "Request id " + entry.requestID,
        ]
        if let error = entry.lastError { lines.append("Service    " + error) }
        lines.append("")
        if case .action(let operation) = entry.write {
            lines.append("Action     " + TextSanitizer.sanitize(Self.shown(operation)))
            for parameter in entry.changes {
                lines.append("  " + parameter.name + "  " + ValueFormatter.format(parameter.value))
            }
            return lines.joined(separator: "\n")
        }
        for change in entry.changes {
            let base = entry.base.first { $0.name == change.name }.map { ValueFormatter.format($0.value) } ?? "–"
            lines.append(change.name)
            lines.append("  I started from  " + base)
            lines.append("  mine            " + ValueFormatter.format(change.value))
            if let theirs = entry.theirs {
                lines.append(
                    "  theirs          "
                        + (theirs.first { $0.name == change.name }.map { ValueFormatter.format($0.value) } ?? "–"))
            }
        }
        if entry.state == .conflict {
            lines += [
                "", "The entity changed on the service since it was read. In the outbox: m keeps mine, t takes theirs.",
            ]
        }
        return lines.joined(separator: "\n")
    }
}
