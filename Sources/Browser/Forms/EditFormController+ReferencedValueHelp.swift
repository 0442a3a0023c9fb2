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
        let targets = valueListTargets(of: field) ?? []
        let name = field.input.name
        let label = field.label
        let lookup = environment.lookUpValueHelp(
            references: property.valueListReferences, targets: targets, label: label
        ) { [weak self] found in
            guard let self else { return }
            guard case .success(let (service, list)) = found else {
                if case .failure(let why) = found { self.message = why.sentence }
                return
            }
            // (the user may have moved on meanwhile: the list is shown only for the field that asked)
            guard let index = self.fields.firstIndex(where: { $0.input.name == name && !$0.isLinkField }),
                index == self.focus,
                case .push(let picker) = self.picker(of: list, for: self.fields[index], in: service)
            else {
                self.message = "The value help of \(label) is ready: F4 on it shows it."
                return
            }
            // (the form's "Reading…" is over either way)
            self.message =
                self.environment.presentHandler(picker, self)
                ? nil : "The value help of \(label) is ready: F4 on it shows it."
        }
        switch lookup {
        case .ready(let service, let list): return picker(of: list, for: field, in: service)
        case .refused(let sentence): message = sentence
        case .opening: message = "Reading the value help of \(label)…"
        }
        return .handled
    }
}
