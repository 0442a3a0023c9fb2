import ODataCore
import Terminal

/// Value help another service gives (issue 33, `Common.ValueListReferences`): SAP's RAP services publish each
/// property's value help as a service of its own. F4 on such a field opens that service once per session — its
/// `$metadata` read (or taken from its cache), its own cache and fetcher — finds the `Common.ValueListMapping` it
/// aims at the field's property, and lists the values as a value list of this service is listed. Opening it does
/// not hold the form: the list is pushed when it is ready, if the form is still on top; else F4 shows it.
extension EditFormController {
    /// F4 on `field`, whose `property` has value-list references and no value list of its own.
    func referencedValueHelp(_ field: Field, _ property: Property) -> ScreenAction {
        guard let open = environment.openService, let root = environment.serviceRoot, let set = formSet,
            let type = environment.model.entityType(ofSet: set)
        else {
            message = "The values of \(field.label) are listed by another service, which is not opened here."
            return .handled
        }
        var roots: [String] = []
        var refusal: ValueListReference.Refusal?
        for reference in property.valueListReferences {
            switch ValueListReference.serviceRoot(of: reference, forServiceAt: root) {
            case .success(let found): if !roots.contains(found) { roots.append(found) }
            case .failure(let why): refusal = refusal ?? why
            }
        }
        guard let serviceRoot = roots.first else {
            let reason = TextSanitizer.sanitize((refusal ?? .notMetadata).description)
            message = "Value help of \(field.label) not read: \(reason)."
            return .handled
        }
        // (a service that lists its own values names itself: what it says is in its own model)
        if serviceRoot == root { return referencedPicker(for: field, property, of: type, in: environment) }
        if let service = environment.referencedEnvironments[serviceRoot] {
            return referencedPicker(for: field, property, of: type, in: service)
        }
        guard !environment.openingServices.contains(serviceRoot) else {
            message = "Still reading the value help of \(field.label)…"
            return .handled
        }
        environment.openingServices.insert(serviceRoot)
        message = "Reading the value help of \(field.label)…"
        let name = field.input.name
        let label = field.label
        let environment = environment
        Task { @MainActor [weak self] in
            let opened: BrowserEnvironment
            do {
                // (kept for the session even when the form has gone: the next F4 needs no second opening)
                opened = environment.environment(for: try await open(serviceRoot))
                environment.openingServices.remove(serviceRoot)
            } catch {
                environment.openingServices.remove(serviceRoot)
                let said = TextSanitizer.sanitize(String(String(describing: error).prefix(300)))
                self?.message = "The value help of \(label) could not be read: \(said)"
                environment.setNeedsDisplay()
                return
            }
            defer { environment.setNeedsDisplay() }
            guard let self else { return }
            // (the user may have moved on meanwhile: the list is shown only for the field that asked)
            guard let index = self.fields.firstIndex(where: { $0.input.name == name && !$0.isLinkField }),
                index == self.focus
            else {
                self.message = "The value help of \(label) is ready: F4 on it shows it."
                return
            }
            guard
                case .push(let picker) = self.referencedPicker(for: self.fields[index], property, of: type, in: opened)
            else { return }
            // (the form's "Reading…" is over either way)
            self.message =
                environment.presentHandler(picker, self)
                ? nil : "The value help of \(label) is ready: F4 on it shows it."

        }
        return .handled
    }

    /// The value list the opened `service` maps to `property` of `type`: its unqualified mapping, else its first.
    func referencedPicker(
        for field: Field, _ property: Property, of type: EntityType, in service: BrowserEnvironment
    ) -> ScreenAction {
        let mappings = service.model.valueListMappings(for: property.name, ofType: type.qualifiedName)
        guard let list = mappings.first(where: { service.model.entitySet(named: $0.collectionPath) != nil })
        else {
            message =
                mappings.isEmpty
                ? "The value help of \(field.label) is not there: its service says nothing of it."
                : "The value help of \(field.label) is listed in a set its service does not have."
            return .handled
        }
        return picker(of: list, for: field, in: service)
    }
}
