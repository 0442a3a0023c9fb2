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
        // (a mapping may be aimed at the property where a base type declares it, or at an operation's parameter)
        guard let open = environment.openService, let root = environment.serviceRoot,
            let types = valueListTargets(of: field)
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
        guard !roots.isEmpty else {
            let reason = TextSanitizer.sanitize((refusal ?? .notMetadata).description)
            message = "Value help of \(field.label) not read: \(reason)."
            return .handled
        }
        // The references in order, each service opened once per session: the first that maps the property lists it.
        // One open already does not jump the queue: an earlier one not opened yet is tried first.
        // (a service that lists its own values names itself: what it says is in its own model)
        let opened = roots.map { $0 == root ? environment : environment.referencedEnvironments[$0] }
        let firstUnopened = opened.firstIndex { $0 == nil } ?? roots.count
        if let service = opened[..<firstUnopened].compactMap({ $0 }).first(where: {
            Self.mapping(at: types, in: $0) != nil
        }) {
            return referencedPicker(for: field, property, of: types, in: service)
        }
        let rest = Array(roots[firstUnopened...])
        guard !rest.isEmpty else {
            // (every one is open and none maps it: the first says why)
            let first = opened.compactMap { $0 }.first ?? environment
            return referencedPicker(for: field, property, of: types, in: first)
        }
        let toOpen = rest.filter { environment.referencedEnvironments[$0] == nil }
        guard toOpen.allSatisfy({ !environment.openingServices.contains($0) }) else {
            message = "A value help is being read just now: F4 again in a moment."
            return .handled
        }
        environment.openingServices.formUnion(toOpen)
        message = "Reading the value help of \(field.label)…"
        let name = field.input.name
        let label = field.label
        let here = environment
        Task { @MainActor [weak self] in
            var found: BrowserEnvironment?
            var failure: String?
            var tried: Set<String> = []
            for serviceRoot in rest where found == nil {
                if let service = here.referencedEnvironments[serviceRoot] {
                    if Self.mapping(at: types, in: service) != nil { found = service }
                    continue
                }
                tried.insert(serviceRoot)
                do {
                    // (kept for the session even when the form has gone: the next F4 needs no second opening)
                    let service = here.environment(for: try await open(serviceRoot))
                    if Self.mapping(at: types, in: service) != nil { found = service }
                } catch {
                    failure = failure ?? TextSanitizer.sanitize(String(String(describing: error).prefix(300)))
                }
                here.openingServices.remove(serviceRoot)
            }
            // (those left untried, a service before them having answered: no longer being opened by this F4)
            here.openingServices.subtract(toOpen.filter { !tried.contains($0) })
            defer { here.setNeedsDisplay() }
            guard let self else { return }
            guard let found else {
                if let failure {
                    self.message = "The value help of \(label) could not be read: \(failure)"
                } else if let first = rest.first.flatMap({ here.referencedEnvironments[$0] }) {
                    self.message = Self.noMapping(label, property, types, in: first)
                }
                return
            }
            // (the user may have moved on meanwhile: the list is shown only for the field that asked)
            guard let index = self.fields.firstIndex(where: { $0.input.name == name && !$0.isLinkField }),
                index == self.focus,
                case .push(let picker) = self.referencedPicker(for: self.fields[index], property, of: types, in: found)
            else {
                self.message = "The value help of \(label) is ready: F4 on it shows it."
                return
            }
            // (the form's "Reading…" is over either way)
            self.message =
                here.presentHandler(picker, self)
                ? nil : "The value help of \(label) is ready: F4 on it shows it."
        }
        return .handled
    }

    /// The value list `service` maps to the first of `targets` it aims at, in a set it has: its unqualified
    /// mapping, else its first.
    static func mapping(at targets: [String], in service: BrowserEnvironment) -> ValueList? {
        service.model.valueListMappings(at: targets).first {
            service.model.entitySet(named: $0.collectionPath) != nil
        }
    }

    /// The list of the value list the opened `service` maps to `property` (at one of `types`, its targets), or why
    /// there is none.
    func referencedPicker(
        for field: Field, _ property: Property, of types: [String], in service: BrowserEnvironment
    ) -> ScreenAction {
        guard let list = Self.mapping(at: types, in: service) else {
            message = Self.noMapping(field.label, property, types, in: service)
            return .handled
        }
        return picker(of: list, for: field, in: service)
    }

    /// Why `service` lists no values of `property` (at `types`, its targets).
    static func noMapping(
        _ label: String, _ property: Property, _ types: [String], in service: BrowserEnvironment
    ) -> String {
        service.model.valueListMappings(at: types).isEmpty
            ? "The value help of \(label) is not there: its service says nothing of it."
            : "The value help of \(label) is listed in a set its service does not have."
    }
}
