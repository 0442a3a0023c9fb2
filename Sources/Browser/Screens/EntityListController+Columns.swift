import EntityCache
import ODataCore
import Terminal

/// The columns of a list: the profile's, or without one every property `$metadata` gives, as wide as the data
/// seen; hidden and shown again by the user; scrolled sideways when the terminal is narrower than the table.
extension EntityListController {
    /// The widest a column without a profile grows to as values are seen (the label's, and the others').
    static let widestLabel = 40
    static let widestColumn = 28

    /// Every column of the shown set, hidden or not.
    var allColumns: [DisplayProfile.Column] {
        let profile = environment.setProfile(shownSet ?? "")
        if let columns = profile.columns, !columns.isEmpty { return columns }
        if columnState.derived == nil {
            columnState.derived = Self.columns(
                from: profile, set: shownSet, model: environment.model, type: castType)
        }
        return (columnState.derived ?? []).map { column in
            var column = column
            column.width = columnState.seenWidths[column.title] ?? Self.headerWidth(column.title)
            return column
        }
    }

    /// The columns shown (sideways scrolling aside): all but those the user hid, and never none.
    var columns: [DisplayProfile.Column] {
        let all = allColumns
        let hidden = environment.hiddenColumns[shownSet ?? ""] ?? []
        guard !hidden.isEmpty else { return all }
        let shown = all.filter { !hidden.contains($0.title) }
        return shown.isEmpty ? Array(all.prefix(1)) : shown
    }

    /// Without a profile: the service's `UI.LineItem` when it declares one; else the row label first, then each
    /// property it does not show, as `$metadata` orders them (binary values and streams left to the detail
    /// screen). Headers are the service's labels (`Common.Label`, `sap:label`), else the property names.
    /// `type`: the type a type-cast list shows (one derived from the set's), whose own properties are columns too.
    static func columns(
        from profile: DisplayProfile.SetProfile, set: String?, model: ServiceModel, type cast: EntityType? = nil
    ) -> [DisplayProfile.Column] {
        let label = profile.row ?? ""
        let labelColumn = DisplayProfile.Column(title: profile.title ?? set ?? "", value: label, width: 0, align: nil)
        guard let set, let type = cast ?? model.entityType(ofSet: set) else { return [labelColumn] }
        let properties = model.properties(of: type)
        if let lineItem = type.ui.lineItem {
            let columns = lineItem.compactMap { field -> DisplayProfile.Column? in
                if let member = memberColumn(field, in: properties, model: model) { return member }
                guard let property = properties.first(where: { $0.name == field.path }), isShownInList(property)
                else { return nil }
                var column = column(for: property, title: field.label, in: properties)
                column.criticality = field.criticality ?? property.criticality
                column.marksCriticality = field.marksCriticality
                return column
            }
            if !columns.isEmpty { return uniquelyTitled(withType(columns, of: type, model: model)) }
        }
        var columns = [labelColumn]
        let inLabel = Set(ValueFormatter.fields(of: label))
        // (a property the service hides is no column here; the detail still shows it)
        for property in properties
        where !inLabel.contains(property.name) && isShownInList(property) && !property.isHidden {
            columns.append(column(for: property, title: nil, in: properties))
        }
        return uniquelyTitled(withType(columns, of: type, model: model))
    }

    /// The template field a row's own type fills (``typeColumnValue(of:set:model:)``); no property is named so.
    static let typeField = "@type"

    /// `columns`, with one saying each row's type after the first where the service has types derived from the
    /// set's (a row of the set's own type leaves it empty).
    static func withType(
        _ columns: [DisplayProfile.Column], of type: EntityType, model: ServiceModel
    ) -> [DisplayProfile.Column] {
        guard !model.derivedTypes(of: type).isEmpty else { return columns }
        var columns = columns
        let typeColumn = DisplayProfile.Column(title: "Type", value: "{\(typeField)}", width: 0, align: nil)
        columns.insert(typeColumn, at: min(1, columns.count))
        return columns
    }

    /// The name of a row's own type, where it is one derived from the type the list shows (its set's, or the one a
    /// type cast names), as the model allows it; else nil.
    static func typeColumnValue(
        of shown: CachedEntity, set: String?, model: ServiceModel, shownType: EntityType? = nil
    ) -> ODataValue? {
        guard let set, let named = shown.type, let type = model.entityType(named: named, inSet: set),
            type.qualifiedName != (shownType ?? model.entityType(ofSet: set))?.qualifiedName
        else { return nil }
        return .string(String(TextSanitizer.sanitize(type.ui.typeName ?? type.name).prefix(widestColumn)))
    }

    /// What a row's cells are filled from: its properties, and its type for the type column.
    func cellValues(of shown: CachedEntity) -> (String) -> ODataValue? {
        let (set, model, cast) = (shownSet, environment.model, castType)
        // (only while the row says it has a draft: one activated since is no one's)
        let holder =
            shown["HasDraftEntity"] == .bool(true) ? draftHolders[shown.key].flatMap { $0.isEmpty ? nil : $0 } : nil
        return { name in
            if name == Self.typeField {
                return Self.typeColumnValue(of: shown, set: set, model: model, shownType: cast)
            }
            // (a row's draft says whose, where that is known)
            if let holder, name == "HasDraftEntity" { return .string(holder) }
            guard name.utf8.contains(UInt8(ascii: "/")) else {
                return shown.properties.first { $0.name == name }?.value
            }
            // (a member of a complex value: `workplace/city`; a property a hostile service named with slashes is
            // itself, and a name of slashes alone names nothing)
            if let value = shown.properties.first(where: { $0.name == name })?.value { return value }
            let steps = name.split(separator: "/")
            guard steps.count > 1, let first = steps.first else { return nil }
            var value = shown.properties.first { $0.name == first }?.value
            for step in steps.dropFirst() {
                guard case .complex(let members)? = value else { return nil }
                value = members.first { $0.name == step }?.value
            }
            return value
        }
    }

    /// A line item's column for a member of a complex property (`workplace/city`): titled by the line item, else the
    /// member's label, else the path; nil when the path does not name a primitive member of a complex property.
    static func memberColumn(
        _ field: DataField, in properties: [Property], model: ServiceModel
    ) -> DisplayProfile.Column? {
        let steps = field.path.split(separator: "/").map(String.init)
        guard steps.count > 1, steps.count <= EntityDetailController.deepestStructure,
            var members = properties.first(where: { $0.name == steps[0] }).map({ [$0] })
        else { return nil }
        var member: Property?
        for step in steps {
            guard let found = members.first(where: { $0.name == step }) else { return nil }
            member = found
            if case .named(let name) = found.type { members = model.complexTypes[name]?.properties ?? [] }
        }
        guard let member, isShownInList(member) else { return nil }
        return column(for: member, title: field.label ?? member.label ?? field.path, path: field.path)
    }

    /// Whether a list has a column for a property (binary values, streams and structures are the detail's).
    static func isShownInList(_ property: Property) -> Bool {
        switch property.type {
        case .primitive(.binary), .primitive(.stream), .collection, .named, .unknown: false
        case .primitive: true
        }
    }

    /// A property's column: titled as given, else by its label, else its name; numbers to the right; a code with
    /// its text, an amount with its currency (``ValueFormatter/template(for:available:)``).
    static func column(
        for property: Property, title: String?, in properties: [Property] = [], path: String? = nil
    ) -> DisplayProfile.Column {
        let numeric: Set<EdmPrimitiveType> = [.byte, .sByte, .int16, .int32, .int64, .decimal, .double, .single]
        var isNumeric = false
        if case .primitive(let type) = property.type { isNumeric = numeric.contains(type) }
        let title =
            [title, property.label, property.name].lazy.compactMap { $0 }
            .map { String(TextSanitizer.sanitize($0).prefix(Self.widestColumn)) }
            .first { !$0.allSatisfy(\.isWhitespace) } ?? property.name
        let value =
            path.map { "{\($0)}" }
            ?? ValueFormatter.template(for: property) { name in properties.contains { $0.name == name } }
        var column = DisplayProfile.Column(title: title, value: value, width: 0, align: isNumeric ? "right" : nil)
        column.criticality = property.criticality
        return column
    }

    /// Columns whose titles repeat (two properties a service labels alike) get their property's name added, so
    /// that hiding, showing and sorting by title names one column.
    static func uniquelyTitled(_ columns: [DisplayProfile.Column]) -> [DisplayProfile.Column] {
        var counts: [String: Int] = [:]
        for column in columns { counts[column.title.lowercased(), default: 0] += 1 }
        return columns.map { column in
            guard counts[column.title.lowercased(), default: 0] > 1 else { return column }
            var column = column
            let name = ValueFormatter.fields(of: column.value).first ?? ""
            if !name.isEmpty, name != column.title { column.title += " (\(name))" }
            return column
        }
    }

    /// Without a profile, each column grows to the widest value drawn in it so far (up to a limit), so that a
    /// table of short codes does not spread over the screen and a long name is not cut to a fixed width.
    func noteWidthsSeen() {
        let profile = environment.setProfile(shownSet ?? "")
        guard profile.columns?.isEmpty ?? true else { return }
        if columnState.derived == nil { _ = allColumns }
        guard let derived = columnState.derived else { return }
        // (bounded: a long scroll through a large list forgets and measures again)
        if columnState.notedRows.count > 4096 { columnState.notedRows = [] }
        for position in cursor.visible {
            guard let shown = row(at: position)?.shown else { continue }
            var hasher = Hasher()
            hasher.combine(shown.key)
            hasher.combine(shown.properties)
            guard columnState.notedRows.insert(hasher.finalize()).inserted else { continue }
            let values = cellValues(of: shown)
            for (index, column) in derived.enumerated() {
                let text = Self.cell(column, values).text
                let widest = index == 0 ? Self.widestLabel : Self.widestColumn
                let width = min(widest, max(Self.headerWidth(column.title), DisplayWidth.width(of: text)))
                if width > columnState.seenWidths[column.title] ?? 0 { columnState.seenWidths[column.title] = width }
            }
        }
    }

    /// A title and room for the sort mark (` ▲`).
    static func headerWidth(_ title: String) -> Int { DisplayWidth.width(of: title) + 2 }

    /// The columns from the first one shown (``ListColumnState/offset``) on.
    var shownColumns: [DisplayProfile.Column] {
        Array(columns.dropFirst(min(columnState.offset, max(0, columns.count - 1))))
    }

    /// Whether a column is cut or left out on the right at this width (so `>` has somewhere to go).
    func hasColumnsToTheRight(width: Int) -> Bool {
        let shown = shownColumns
        let widths = columnWidths(shown, total: width - SelectionGutter.width)
        return zip(shown, widths).contains { spec, width in width < max(1, spec.width ?? 8) }
    }

    /// `>` / `<`: the next or previous column first; nothing past the last one that fits.
    func scrollColumns(by step: Int, width: Int) {
        if step > 0, !hasColumnsToTheRight(width: width) { return }
        columnState.offset = min(max(0, columnState.offset + step), max(0, columns.count - 1))
        environment.setNeedsDisplay()
    }

    /// Fixed widths as the profile says; a width of 0 (or missing) shares what is left.
    func columnWidths(_ specs: [DisplayProfile.Column], total: Int) -> [Int] {
        let gaps = max(0, specs.count - 1)
        let fixed = specs.reduce(0) { $0 + max(0, $1.width ?? 0) }
        let flexible = specs.filter { ($0.width ?? 0) <= 0 }.count
        let remaining = max(0, total - gaps - fixed)
        var widths = specs.map { spec -> Int in
            if let width = spec.width, width > 0 { return width }
            return flexible > 0 ? max(8, remaining / flexible) : 0
        }
        // When the terminal is narrower than the columns, cut from the right.
        var available = total
        for index in widths.indices {
            widths[index] = max(0, min(widths[index], available))
            available -= widths[index] + 1
        }
        return widths
    }

    /// `-` (or `:hide NAME`): hides a column in every list of this set for the rest of the session; without a
    /// name, the first column shown (`<` and `>` choose it). The last column shown stays.
    func hideColumn(named name: String? = nil) -> String {
        let shown = columns
        let target: DisplayProfile.Column?
        if let name {
            target = shown.first { $0.title.lowercased() == name.lowercased() }
        } else {
            target = shown.indices.contains(columnState.offset) ? shown[columnState.offset] : nil
        }
        guard let target else {
            return "No column “\(name ?? "")” shown here: "
                + shown.map(\.title).joined(separator: ", ") + "."
        }
        guard shown.count > 1 else { return "“\(target.title)” is the only column left." }
        let sorted = columnState.sort.map { shown[$0.column].title }
        environment.hiddenColumns[shownSet ?? "", default: []].insert(target.title)
        resortAfterColumnsChanged(sorted: sorted)
        return "Hid “\(target.title)” · + shows the hidden columns again"
    }

    /// `+` (or `:show`, `:show NAME`): shows hidden columns again, all of them or the one named.
    func showColumns(named name: String? = nil) -> String {
        let set = shownSet ?? ""
        let hidden = environment.hiddenColumns[set] ?? []
        guard !hidden.isEmpty else { return "No column is hidden." }
        let sorted = columnState.sort.map { columns[$0.column].title }
        if let name {
            guard let match = hidden.first(where: { $0.lowercased() == name.lowercased() }) else {
                return "“\(name)” is not hidden; hidden: " + hidden.sorted().joined(separator: ", ") + "."
            }
            environment.hiddenColumns[set]?.remove(match)
            resortAfterColumnsChanged(sorted: sorted)
            return "Showing “\(match)” again"
        }
        environment.hiddenColumns[set] = nil
        resortAfterColumnsChanged(sorted: sorted)
        return "Showing every column again"
    }

    /// Keeps the sort on the column it was on (by title), or drops it when that column was hidden.
    private func resortAfterColumnsChanged(sorted title: String?) {
        let now = columns
        columnState.offset = min(columnState.offset, max(0, now.count - 1))
        if let title, let sort = columnState.sort {
            if let index = now.firstIndex(where: { $0.title == title }) {
                columnState.sort = (index, sort.descending)
            } else {
                columnState.sort = nil
                cursor.moveToStart()
                switch source {
                case .list: arrangeList(reread: true)
                default: reload()
                }
            }
        }
        environment.setNeedsDisplay()
    }
}
