import EntityCache
import Foundation
import ODataCore
import ScreenSeam
import Terminal

/// What a function answered that is not a list (issue 36): a value — a number, a text, a record's fields, a list of
/// values — or one entity, its fields shown and Enter opening it. Read from the cache under the call, like a list
/// under its request: the fetcher asks the service when it is not there or no longer fresh (`r` asks again), and a
/// failure is said where the answer would be.
@MainActor
final class CallResultController: ScreenController {
    let screenID: ScreenID
    let breadcrumb: String
    let kindTitle: String
    let environment: BrowserEnvironment
    /// The call: its path and parameters, as a listing call's list is keyed.
    let call: ListRequest
    var result: CallResult? {
        didSet { if result != oldValue { shown = nil } }
    }
    var entity: CachedEntity? {
        didSet { if entity != oldValue { shown = nil } }
    }
    /// The answer's lines, worked out once per answer (a frame, a scroll and a layout read them).
    private(set) var shown: [(name: String, text: String)]?
    var failure: String?
    var observation: CacheObservation?
    var entityObservation: CacheObservation?
    var failureObservation: CacheObservation?
    var top = 0
    var height = 1

    init(environment: BrowserEnvironment, call: ListRequest, breadcrumb: String, kindTitle: String) {
        self.environment = environment
        self.call = call
        self.breadcrumb = breadcrumb
        self.kindTitle = kindTitle
        self.screenID = environment.nextScreenID()
    }

    var key: String { call.key.canonical }

    func willAppear() {
        result = try? environment.cache.callResult(key)
        failure = try? environment.cache.fetchError(subject: key)
        readEntity()
        observation = environment.cache.observeCallResult(key) { [weak self] result in
            guard let self, self.result != result else { return }
            self.result = result
            self.readEntity()
            self.environment.setNeedsDisplay()
        }
        failureObservation = environment.cache.observeFetchError(subject: key) { [weak self] failure in
            guard let self, self.failure != failure else { return }
            self.failure = failure
            self.environment.setNeedsDisplay()
        }
    }

    /// The entity answered, read and observed (it may change, or arrive whole later).
    func readEntity() {
        entityObservation?.cancel()
        entityObservation = nil
        guard let entityKey = result?.entityKey else {
            entity = nil
            return
        }
        entity = (try? environment.cache.entity(entityKey)) ?? nil
        entityObservation = environment.cache.observeEntity(entityKey) { [weak self] entity in
            self?.entity = entity
            self?.environment.setNeedsDisplay()
        }
    }

    /// While the answer has not come, each frame reads whether it has, or failed (a row each): the observation's
    /// delivery may come a frame after the fetcher filed it.
    func update() {
        defer { _ = lines }  // (the lines the frame draws, worked out here: drawing changes nothing)
        guard result == nil else { return }
        failure = try? environment.cache.fetchError(subject: key)
        guard let read = (try? environment.cache.callResult(key)) ?? nil else { return }
        result = read
        readEntity()
    }

    func didAppear() {
        environment.intents.screenDidShow(.call(call), visible: 0..<1, screen: screenID)
    }

    func didDisappear() {
        observation?.cancel()
        entityObservation?.cancel()
        failureObservation?.cancel()
        observation = nil
        entityObservation = nil
        failureObservation = nil
    }

    func refresh() {
        environment.intents.refresh(screen: screenID)
    }

    var statusSummary: String {
        var parts: [String] = []
        if result?.entityKey != nil { parts.append("Enter opens it") }
        if let age = environment.age(of: result?.fetchedAt) { parts.append(age) }
        if result != nil, let failure { parts.append(failure) }
        parts.append("r asks again")
        return parts.joined(separator: " · ")
    }

    /// The answer as lines of a name (empty for a bare value) and its text, each text cut to what a line can show.
    var lines: [(name: String, text: String)] {
        if let shown { return shown }
        var lines: [(name: String, text: String)] = []
        if let entity {
            lines = entity.properties.filter { !$0.isInstanceAnnotation }.map {
                ($0.name, FieldInput.text(of: $0.value))
            }
        } else if let json = result?.value {
            lines = Self.lines(ofJSON: json)
            if lines.count == 1, lines[0].name.isEmpty, let places = decimalPlaces,
                let text = Self.decimal(lines[0].text)
            {
                // (a decimal of a declared scale, as a property of it shows: `0.00`, not the `0.0` a JSON number is)
                lines[0].text = ValueFormatter.format(.decimal(text), as: "places\(places)")
            }
        }
        // (a service may answer megabytes: a line shows a few thousand characters at most, sanitised once)
        let cut = lines.prefix(10_000).map { line in
            (
                TextSanitizer.sanitize(String(line.name.prefix(200))),
                TextSanitizer.sanitize(String(line.text.prefix(4096)))
            )
        }
        shown = cut
        return cut
    }

    /// The places a decimal answer of the call's function has (its return type's `Scale`, 0 to 3); nil for any
    /// other answer.
    var decimalPlaces: Int? {
        let name = call.path.segments.last?.name ?? ""
        guard
            let operation = environment.model.operations.first(where: { $0.name == name || $0.qualifiedName == name }),
            operation.returnType == .primitive(.decimal), let scale = operation.returnScale, (0...3).contains(scale)
        else { return nil }
        return scale
    }

    /// `text` when it is a plain decimal number (as ``ODataCore/DecimalText`` reads one, without an exponent), else
    /// nil.
    static func decimal(_ text: String) -> String? {
        guard text.count <= 40, !text.contains(where: { $0 == "e" || $0 == "E" }), DecimalText.canonical(text) != nil
        else { return nil }
        return text
    }

    /// A value kept as plain JSON, as lines: one for a single value, a name and a value for each field of a record,
    /// one for each value of a list (a record in it on one line).
    static func lines(ofJSON json: String) -> [(name: String, text: String)] {
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed) else {
            return [("", json)]
        }
        func text(_ value: Any) -> String {
            switch value {
            case let string as String: return string
            case is NSNull: return "(none)"
            case let number as NSNumber: return number.stringValue
            case let object as [String: Any]:
                return object.keys.sorted().map { $0 + ": " + text(object[$0]!) }.joined(separator: ", ")
            case let array as [Any]: return array.map(text).joined(separator: ", ")
            default: return String(describing: value)
            }
        }
        switch parsed {
        case let object as [String: Any]:
            // (in the order the service gave them, which a parsed object forgets)
            let order = topLevelKeys(json).filter { object[$0] != nil }
            let rest = object.keys.filter { !order.contains($0) }.sorted()
            return (order + rest).map { ($0, text(object[$0]!)) }
        case let array as [Any]: return array.isEmpty ? [("", "(no values)")] : array.map { ("", text($0)) }
        default: return [("", text(parsed))]
        }
    }

    /// The keys of a JSON object's top level, in order (strings at depth one followed by a colon).
    static func topLevelKeys(_ json: String) -> [String] {
        var keys: [String] = []
        var depth = 0
        var inString = false
        var escaped = false
        var current = ""
        var lastString: String?
        for character in json {
            if inString {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                    lastString = current
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "\"":
                inString = true
                current = ""
            case "{", "[": depth += 1
            case "}", "]": depth -= 1
            case ":":
                if depth == 1, let key = lastString { keys.append(key) }
            default: break
            }
            if character != "\"" && character != ":" && !character.isWhitespace { lastString = nil }
        }
        return keys
    }

    func layout(rows: Int, columns: Int) {
        height = max(1, rows)
        top = min(top, max(0, lines.count - height))
    }

    func handle(_ key: Key) -> ScreenAction {
        switch key {
        case .down, .char("j"):
            top = min(top + 1, max(0, lines.count - height))
        case .up, .char("k"):
            top = max(0, top - 1)
        case .enter, .right, .char("l"):
            guard let entity else { return .ignored }
            return .push(
                EntityDetailController(
                    environment: environment, key: entity.key, breadcrumb: environment.label(of: entity)))
        default:
            return .ignored
        }
        environment.setNeedsDisplay()
        return .handled
    }

    func render(into buffer: inout ScreenBuffer, rows: Range<Int>) {
        let width = buffer.size.columns
        guard result != nil else {
            let text = failure.map { "The service could not answer: \($0) · r asks again" } ?? "loading…"
            buffer.put(
                " " + TextSanitizer.sanitize(text), row: rows.lowerBound, column: 0, width: width,
                style: CellStyle(role: failure == nil ? .muted : .error))
            return
        }
        let shown = self.shown ?? []
        if shown.isEmpty {
            buffer.put(" (nothing)", row: rows.lowerBound, column: 0, width: width, style: CellStyle(role: .muted))
            return
        }
        let nameWidth = min(24, (shown.map { $0.name.count }.max() ?? 0))
        for (offset, line) in shown.dropFirst(top).prefix(rows.count).enumerated() {
            let row = rows.lowerBound + offset
            var column = 1
            if nameWidth > 0 {
                column =
                    buffer.put(
                        TextSanitizer.sanitize(line.name), row: row, column: 1, width: nameWidth,
                        style: CellStyle(role: .muted)) + 2
                column = max(column, nameWidth + 3)
            }
            buffer.put(line.text, row: row, column: column, width: max(0, width - column))
        }
    }
}
