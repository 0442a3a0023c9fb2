import EntityCache
import Foundation
import ODataCore
import ScreenSeam

/// A form on an entity of a set the service edits through drafts (issue 36), as the service's Fiori app edits it:
/// the draft is made when the form opens (the service holds the entity for this user meanwhile), each field left
/// changed is kept in it at once (where the service checks it, and where it stays should the browser stop), Enter
/// saves (the queued change prepares and activates that draft), and Esc, once asked, discards it. A draft of the
/// user's own already on the service is resumed: its values fill the fields that came as the entity holds them.
/// Offline, or where the service refuses the draft (another user holds it), the form works as any other and the
/// change goes through a draft when it is sent.
extension EditFormController {
    /// The draft of the entity this form changes, when its set is edited through drafts and the form saves to the
    /// service itself (not a form on a write in the outbox, nor a new entity's).
    var draftOfEntity: EntityKey? {
        guard let key, creating == nil, onSave == nil, onParameters == nil, environment.writes != nil else {
            return nil
        }
        return environment.model.draftKey(of: key)
    }

    /// Asks for the draft (once) and watches for its copy.
    func openDraft() {
        guard !draft.asked, let key, let draftKey = draftOfEntity, let writes = environment.writes else { return }
        draft.asked = true
        let openedAt = environment.now().addingTimeInterval(-1)
        writes.editDraft(of: key, etag: baseEtag)
        draft.observation = environment.cache.observeEntity(draftKey) { [weak self] copy in
            // (a copy cached before this form opened is an old one: the service's answer replaces it)
            guard let self, let copy, copy.fetchedAt >= openedAt else { return }
            self.draftArrived(copy)
        }
    }

    /// The service's draft is here: fields left as they came take its values (those of a draft resumed). Later
    /// copies (the service's answer to a field kept, what its side effects changed) show in the fields the user has
    /// not changed since, and in those the service sets.
    func draftArrived(_ copy: CachedEntity) {
        guard draft.isOpen else { return draftOpened(copy) }
        var changed = false
        // (not the key, nor what says which copy it is: the form is on the active entity)
        let keys = environment.model.entityType(ofSet: copy.entitySet).map(environment.model.keyProperties(of:)) ?? []
        let copies = ServiceModel.draftPropertyNames
        for index in fields.indices where fields[index].readOnly != Self.notLoaded {
            let name = fields[index].input.name
            guard !keys.contains(name), !copies.contains(name), let value = copy[name] else { continue }
            let text = FieldInput.text(of: value)
            guard fields[index].isEditable else {
                // (a field the service sets shows its value, and is never sent)
                guard text != FieldInput.text(of: fields[index].original) else { continue }
                fields[index].original = value
                changed = true
                continue
            }
            // (what the user typed and has not left is theirs, and so is a value not yet kept)
            guard text != fields[index].text, index != focus,
                fields[index].text == (draft.kept[name] ?? FieldInput.text(of: fields[index].original))
            else { continue }
            draft.kept[name] = text
            fields[index].text = text
            fields[index].caret = text.count
            changed = true
        }
        if changed { environment.setNeedsDisplay() }
    }

    func draftOpened(_ copy: CachedEntity) {
        draft.isOpen = true
        var resumed = 0
        for index in fields.indices where fields[index].isEditable {
            let name = fields[index].input.name
            let came = FieldInput.text(of: fields[index].original)
            guard fields[index].text == came, let value = copy[name] else { continue }
            let text = FieldInput.text(of: value)
            draft.kept[name] = text
            guard text != came else { continue }
            fields[index].text = text
            fields[index].caret = text.count
            resumed += 1
        }
        notice =
            resumed == 0
            ? "Editing a draft on the service: each field is kept there as you leave it."
            : "Your draft on the service is resumed: \(resumed) field\(resumed == 1 ? "" : "s") hold\(resumed == 1 ? "s" : "") what you left there."
        environment.setNeedsDisplay()
    }

    /// Keeps field `index` in the draft when it was left changed since last kept; a value that does not parse is
    /// said next to it and not sent.
    func keepInDraft(_ index: Int) {
        guard draft.asked, let key, fields.indices.contains(index), fields[index].isEditable,
            let writes = environment.writes
        else { return }
        let field = fields[index]
        let name = field.input.name
        guard field.text != (draft.kept[name] ?? FieldInput.text(of: field.original)) else { return }
        switch field.input.parse(field.text) {
        case .success(let value):
            draft.kept[name] = field.text
            writes.changeDraft(
                EntityChange(key: key, changes: [ODataProperty(name: name, value: value)], baseEtag: baseEtag))
        case .failure(let error):
            fields[index].error = error.sentence
        }
    }

    /// The form is left without saving: its draft goes.
    func leaveDraft() {
        draft.observation?.cancel()
        draft.observation = nil
        guard draft.asked, let key else { return }
        draft.asked = false
        environment.writes?.discardDraft(of: key)
    }
}

/// What a form knows of the draft it edits.
struct FormDraft {
    /// Whether the draft was asked for; whether the service's copy arrived.
    var asked = false
    var isOpen = false
    /// The text of each field as last kept in the draft (or as the draft came).
    var kept: [String: String] = [:]
    var observation: CacheObservation?
}
