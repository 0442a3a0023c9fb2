import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// The detail's lines: the entity's properties by section, structured values opened, its draft, its streams.
extension EntityDetailController {
    /// `lines`, with each structured value opened: a complex value's members one per line under its own, indented,
    /// by their labels where the model has its type; a collection's elements one per line, numbered. Enter or `v` on
    /// any of them reads the whole value.
    func structured(_ lines: [Line], of entity: CachedEntity, declared: [Property]) -> [Line] {
        let model = environment.model
        var result: [Line] = []
        var opened = 0
        func open(_ value: ODataValue, type: EdmTypeReference?, under line: Line, depth: Int) {
            let indent = String(repeating: "  ", count: depth)
            switch value {
            case .complex(let members) where GeoShape(value) == nil && depth <= Self.deepestStructure:
                var typeName: String?
                if case .named(let name)? = type { typeName = name }
                let memberTypes = typeName.flatMap { model.complexTypes[$0]?.properties } ?? []
                for member in members {
                    let declared = memberTypes.first { $0.name == member.name }
                    let label = indent + TextSanitizer.sanitize(declared?.label ?? member.name)
                    add(member.value, type: declared?.type, label: label, under: line, depth: depth)
                }
            case .collection(let elements) where depth <= Self.deepestStructure:
                var elementType: EdmTypeReference?
                if case .collection(let inner)? = type { elementType = inner }
                for (index, element) in elements.prefix(Self.mostElements).enumerated() {
                    add(element, type: elementType, label: indent + "\(index + 1)", under: line, depth: depth)
                }
                if elements.count > Self.mostElements {
                    var more = line
                    (more.label, more.value) = (
                        indent + "…", "\(elements.count - Self.mostElements) more (v shows all)"
                    )
                    result.append(more)
                }
            default:
                break
            }
        }
        func add(_ value: ODataValue, type: EdmTypeReference?, label: String, under line: Line, depth: Int) {
            guard opened < Self.mostStructureLines else { return }
            opened += 1
            var member = line
            member.label = label
            member.criticality = nil
            let opens = Self.opens(value) && depth < Self.deepestStructure
            member.value = opens ? Self.summary(of: value) : ValueFormatter.format(value)
            result.append(member)
            if opens { open(value, type: type, under: line, depth: depth + 1) }
        }
        for line in lines {
            guard !line.isHeading, line.navigation == nil, line.hop == nil, !line.name.isEmpty,
                let value = entity[line.name], Self.opens(value)
            else {
                result.append(line)
                continue
            }
            var summed = line
            summed.value = Self.summary(of: value)
            result.append(summed)
            open(value, type: declared.first { $0.name == line.name }?.type, under: line, depth: 1)
        }
        return result
    }

    /// Whether a value is opened as lines of its own: a complex value (not a place or shape) or a collection.
    static func opens(_ value: ODataValue) -> Bool {
        switch value {
        case .complex: GeoShape(value) == nil
        case .collection(let elements): !elements.isEmpty
        default: false
        }
    }

    /// What the line of an opened value says: nothing for a structure, the count for a collection.
    static func summary(of value: ODataValue) -> String {
        guard case .collection(let elements) = value else { return "" }
        return elements.count == 1 ? "1 item" : "\(elements.count) items"
    }

    func buildLines() -> [Line] {
        let model = environment.model
        let setType = model.entityType(ofSet: key.entitySet)
        // (its own type where it is of one derived from its set's, as the service said and the model allows)
        let type = model.entityType(named: entity?.type, inSet: key.entitySet)
        // (once per build: ``navigations`` works them out from the type each time it is read)
        let navigations = type.map { model.navigationProperties(of: $0).map(\.name) } ?? []
        let declared = type.map { model.properties(of: $0) } ?? []
        let present = Set((entity?.properties ?? []).map(\.name))
        let loading = entity.map { !$0.isComplete } ?? false
        /// A property's line: its value, or (in a copy cut to what a list shows) that the rest is on its way.
        func field(_ name: String, label: String? = nil, data: DataField? = nil) -> Line? {
            let property = declared.first { $0.name == name }
            let title = label ?? property?.label ?? name
            if present.contains(name), let entity, entity[name] != nil {
                let template =
                    property.map { property in
                        ValueFormatter.template(for: property) { other in declared.contains { $0.name == other } }
                    } ?? "{\(name)}"
                // (a plain value as it is: a template's filling trims its edges)
                let value =
                    template == "{\(name)}"
                    ? ValueFormatter.format(entity[name] ?? .null) : ValueFormatter.fill(template) { entity[$0] }
                var line = Line(label: title, value: value, navigation: nil, name: name)
                if let level = (data?.criticality ?? property?.criticality)?.level({ entity[$0] }) {
                    line.criticality = CriticalityStyle(level)
                    line.marksCriticality = data?.marksCriticality ?? true
                }
                return line
            }
            guard loading, property != nil else { return nil }
            return Line(label: title, value: "loading…", navigation: nil, name: name)
        }
        var result: [Line] = []
        var shownFields: Set<String> = []
        var shownNavigations: Set<String> = []
        if let ui = type?.ui, let facets = ui.facets, entity != nil {
            func add(_ facets: [Facet], depth: Int) {
                for facet in facets {
                    var section: [Line] = []
                    var fields: [DataField] = []
                    switch facet.target {
                    case .fieldGroup(let qualifier): fields = ui.fieldGroups[qualifier]?.data ?? []
                    case .identification: fields = ui.identification ?? []
                    case .lineItem(let navigation) where navigations.contains(navigation):
                        shownNavigations.insert(navigation)
                        section.append(
                            Line(label: facet.label ?? navigation, value: "›", navigation: navigation, name: ""))
                    case .lineItem: continue
                    case .collection:
                        if let label = facet.label {
                            result.append(Line(label: label, value: "", navigation: nil, name: "", isHeading: true))
                        }
                        add(facet.facets, depth: depth + 1)
                        continue
                    }
                    for data in fields where !shownFields.contains(data.path) {
                        guard let line = field(data.path, label: data.label, data: data) else { continue }
                        shownFields.insert(data.path)
                        section.append(line)
                    }
                    guard !section.isEmpty else { continue }
                    if section.count > 1 || section[0].navigation == nil, let label = facet.label {
                        result.append(Line(label: label, value: "", navigation: nil, name: "", isHeading: true))
                    }
                    result += section
                }
            }
            add(facets, depth: 0)
        }
        let names = (entity?.properties.map(\.name) ?? []) + (loading ? declared.map(\.name) : [])
        var rest: [Line] = []
        var dynamic: [Line] = []
        var seen = shownFields
        // (what the payload said of a stream is not a property: MediaStream)
        for name in names where !seen.contains(name) && !name.contains("@") {
            seen.insert(name)
            guard var line = field(name) else { continue }
            if declared.contains(where: { $0.name == name }) {
                rest.append(line)
            } else {
                // (a property the schema does not declare: its name is the service's word, shown as text)
                line.label = String(TextSanitizer.sanitize(name).prefix(Self.widestDynamicName))
                dynamic.append(line)
            }
        }
        if !result.isEmpty, !rest.isEmpty {
            result.append(Line(label: "More", value: "", navigation: nil, name: "", isHeading: true))
        }
        result += rest
        if let type, let setType, type.qualifiedName != setType.qualifiedName {
            // (an entity of a derived type says which, first; then its streams)
            let name = TextSanitizer.sanitize(type.ui.typeName ?? type.name)
            result.insert(Line(label: "Type", value: String(name.prefix(60)), navigation: nil, name: ""), at: 0)
        }
        let typeLines = result.first.map { $0.label == "Type" && $0.name.isEmpty && !$0.isHeading } == true ? 1 : 0
        result.insert(contentsOf: streamLines(type: type, declared: declared), at: typeLines)
        if let draft = draftLine() { result.insert(draft, at: 0) }
        if !dynamic.isEmpty {
            // Dynamic properties (an open type's), after the declared ones, never among them.
            let heading = type.map(model.isOpen) == true ? "Dynamic properties" : "Not in $metadata"
            result.append(Line(label: heading, value: "", navigation: nil, name: "", isHeading: true))
            result += dynamic
        }
        for navigation in navigations where !shownNavigations.contains(navigation) {
            // A navigation to link entities (a person's PersonCar rows, each holding only keys, stamps and two
            // to-one navigations) first offers what they link, under that set's title ("Cars"); the link entities
            // themselves stay on the line after it.
            if let hop = environment.model.linkHop(navigation, fromSet: key.entitySet),
                let far = environment.targetSet(from: key.entitySet, path: hop)
            {
                let title = environment.setProfile(far).title ?? far
                result.append(Line(label: title, value: "› through \(navigation)", name: "", hop: hop))
            }
            result.append(Line(label: navigation, value: "›", navigation: navigation, name: navigation))
        }
        return entity.map { structured(result, of: $0, declared: declared) } ?? result
    }

    /// Where the entity's set is edited through drafts and it has one (or is one): who edits that draft and since
    /// when, first, as its `DraftAdministrativeData` (cached with it) says.
    func draftLine() -> Line? {
        guard let entity, entity["HasDraftEntity"] == .bool(true) || entity[DraftActions.activeKey] == .bool(false),
            let administration = environment.draftAdministration(of: key)
        else { return nil }
        let since = administration.since.map { ", since " + ValueFormatter.format($0) } ?? ""
        let who = administration.user.map { String(TextSanitizer.sanitize($0).prefix(60)) }
        let value: String
        switch (administration.isMine, administration.isOpen, who) {
        case (true, true, _): value = "yours" + since
        case (true, false, _): value = "yours" + since + " (not open now)"
        case (false, true, let who?): value = "\(who) is editing it" + since
        case (false, false, let who?): value = "made by \(who)" + since + " (nobody has it open)"
        default: value = "someone else's" + since
        }
        return Line(label: "Draft", value: value, navigation: nil, name: "")
    }

    /// A line for the entity's media (a media entity's, `HasStream`) and one for each stream property: what the
    /// service says the content is, and that `:save FILE` saves it. The content itself is never drawn.
    func streamLines(type: EntityType?, declared: [Property]) -> [Line] {
        guard let entity else { return [] }
        var lines: [Line] = []
        let own = MediaStream.described(in: entity.properties)
        if type.map(environment.model.hasStream) == true || own != nil {
            let stream = own ?? MediaStream()
            lines.append(Line(label: "Media", value: Self.streamText(stream), name: "", stream: stream))
        }
        for property in declared where property.type == .primitive(.stream) {
            let stream =
                MediaStream.described(in: entity.properties, property: property.name)
                ?? MediaStream(property: property.name)
            lines.append(
                Line(label: property.label ?? property.name, value: Self.streamText(stream), name: "", stream: stream))
        }
        return lines
    }

    /// `image/png · 4.0 KB · :save FILE saves it`.
    static func streamText(_ stream: MediaStream) -> String {
        let size = stream.length.map { " · " + ByteCountText.format(Int(clamping: $0)) } ?? ""
        return (stream.contentType.map { String($0.prefix(80)) } ?? "content") + size + " · :save FILE saves it"
    }

    /// Asks the service how large each stream shown here is, once per stream and version while the copy says
    /// nothing of it (content uploaded since is a new version, whose size is asked again).
    func askStreamLengths() {
        guard let downloads = environment.downloads, !key.isTemporary else { return }
        for line in lines {
            guard let stream = line.stream, stream.length == nil,
                askedLengths.insert(stream.lengthKey + "\u{1F}" + (stream.etag ?? "")).inserted
            else { continue }
            downloads.measure(stream, of: key)
        }
    }

    /// What `:save` saves here: the stream under the cursor, else the entity's media; nil when it has none.
    var streamToSave: (key: EntityKey, stream: MediaStream)? {
        guard !key.isTemporary else { return nil }
        let all = lines
        if all.indices.contains(cursor.selected), let stream = all[cursor.selected].stream { return (key, stream) }
        guard let media = all.first(where: { $0.stream != nil && $0.stream?.property == nil })?.stream else {
            return nil
        }
        return (key, media)
    }
}
