import EntityCache
import ODataCore
import ScreenSeam
import Terminal

extension EditFormController {
    /// Checks every field; when all are valid, hands the changed ones to the fetcher and closes.
    func save() -> ScreenAction {
        var changes: [ODataProperty] = []
        var linkChanges: [ODataProperty] = []
        var notListed = false
        for index in fields.indices where fields[index].isEditable {
            // A field of an entity left as it came is not read again: the service's own spelling of a value (flags
            // in another order, a member as its number) is no change, and no reason to refuse the form.
            if creating == nil, onParameters == nil, let original = fields[index].original,
                fields[index].text == FieldInput.text(of: original)
            {
                fields[index].error = nil
                continue
            }
            switch fields[index].input.parse(fields[index].text) {
            case .success(let value):
                fields[index].error = nil
                let original = fields[index].original ?? .null
                // (a value the service fixes is checked once typed: what it holds already is its own, and an empty
                // field sends nothing to check)
                if value != original, !fields[index].text.isEmpty, let refusal = notAFixedValue(index) {
                    fields[index].error = refusal
                    notListed = true
                    continue
                }
                // A field without a value left empty stays without one (an empty string is not a change).
                let untouched = original == .null && fields[index].text.isEmpty
                if creating != nil {
                    // A new entity gets every value typed, and the empty text of a string that cannot be null.
                    if !(fields[index].text.isEmpty && fields[index].input.isNullable) {
                        let property = ODataProperty(name: fields[index].input.name, value: value)
                        if fields[index].isLinkField { linkChanges.append(property) } else { changes.append(property) }
                    }
                } else if value != original, !untouched {
                    changes.append(ODataProperty(name: fields[index].input.name, value: value))
                }
            case .failure(let error):
                fields[index].error = error.sentence
            }
            // An operation's parameter that cannot be left out is not an empty text either.
            if onParameters != nil, fields[index].text.isEmpty, !fields[index].input.isNullable {
                fields[index].error = "\(fields[index].label) is required."
            }
        }
        if let first = fields.firstIndex(where: { $0.error != nil }) {
            focus = first
            message =
                notListed
                ? "Nothing was saved. Enter again sends what is not listed as typed."
                : "Nothing was saved: each field marked says what to fix."
            return .handled
        }
        if let onParameters {
            var values: [ODataProperty] = []
            for field in fields where field.isEditable && !(field.text.isEmpty && field.input.isNullable) {
                if case .success(let value) = field.input.parse(field.text) {
                    values.append(ODataProperty(name: field.input.name, value: value))
                }
            }
            switch onParameters(values) {
            case .success(let action): return action
            case .failure(let error):
                message = error.description
                return .handled
            }
        }
        // (a derived type's entity says which, first: the service makes the set's type otherwise)
        let typed = createdType.map { [ODataProperty.statedType($0)] } ?? []
        if creating != nil, let onSave {
            // A refused create edited in the outbox: what was typed replaces what was sent.
            onSave(typed + (changes + linkChanges).filter { $0.value != .null })
            return .pop
        }
        if let creating {
            guard let writes = environment.writes else {
                message = "This browser cannot change data of this service."
                return .handled
            }
            writes.create(
                EntityCreation(
                    entitySet: creating.entitySet, properties: typed + changes.filter { $0.value != .null },
                    addedTo: creating.addedTo, linkProperties: linkChanges.filter { $0.value != .null }))
            onCreate?()
            return .pop
        }
        if draft.asked {
            // A field kept in the draft, then typed back as it came: the draft holds the other value, which the
            // activation would keep, so it is sent as typed.
            for field in fields where field.isEditable && !changes.contains(where: { $0.name == field.input.name }) {
                guard let kept = draft.kept[field.input.name], kept != field.text,
                    case .success(let value) = field.input.parse(field.text)
                else { continue }
                changes.append(ODataProperty(name: field.input.name, value: value))
            }
        }
        guard !changes.isEmpty, let key else {
            leaveDraft()
            return .pop
        }
        if let onSave {
            onSave(changes)
            return .pop
        }
        guard let writes = environment.writes else {
            message = "This browser cannot change data of this service."
            return .handled
        }
        writes.save(EntityChange(key: key, changes: changes, baseEtag: baseEtag))
        return .pop
    }
}
