import ODataCore
import Terminal

/// Finding the service that lists a field's values when another service lists them (issue 33,
/// `Common.ValueListReferences`), for a form's field, an operation's parameter or a `:filter` clause alike.
///
/// The references are tried in order, each service opened once per session (kept even when the screen that asked
/// has gone): the first whose `Common.ValueListMapping` is aimed at one of the field's targets lists its values. A
/// reference to the service itself uses its own model, opening nothing. One already open does not jump the queue:
/// an earlier one not opened yet is tried first.
@MainActor
extension BrowserEnvironment {
    /// What looking for a field's referenced value help found at once.
    enum ValueHelpLookup {
        /// A service already open maps the field: its values can be listed now.
        case ready(BrowserEnvironment, ValueList)
        /// Nothing to list, in a sentence (no service to ask, a refused reference, none maps it, one being read).
        case refused(String)
        /// Services are being opened; `done` is called once, on the main actor, with what they gave.
        case opening
    }

    /// The value help `references` (a property's or parameter's, relative to this service's `$metadata`) give the
    /// field called `label`, whose mappings a value-help service aims at one of `targets`. When services must be
    /// opened first, `done` gets the first that maps the field, or the sentence saying why none does.
    func lookUpValueHelp(
        references: [String], targets: [String], label: String,
        done: @escaping @MainActor (Result<(BrowserEnvironment, ValueList), ValueHelpRefusal>) -> Void
    ) -> ValueHelpLookup {
        guard let open = openService, let root = serviceRoot, !targets.isEmpty else {
            return .refused("The values of \(label) are listed by another service, which is not opened here.")
        }
        var roots: [String] = []
        var refusal: ValueListReference.Refusal?
        for reference in references {
            switch ValueListReference.serviceRoot(of: reference, forServiceAt: root) {
            case .success(let found): if !roots.contains(found) { roots.append(found) }
            case .failure(let why): refusal = refusal ?? why
            }
        }
        guard !roots.isEmpty else {
            let reason = TextSanitizer.sanitize((refusal ?? .notMetadata).description)
            return .refused("Value help of \(label) not read: \(reason).")
        }
        // (a service that lists its own values names itself: what it says is in its own model)
        let opened = roots.map { $0 == root ? self : referencedEnvironments[$0] }
        let firstUnopened = opened.firstIndex { $0 == nil } ?? roots.count
        for service in opened[..<firstUnopened].compactMap({ $0 }) {
            if let list = Self.mapping(at: targets, in: service) { return .ready(service, list) }
        }
        let rest = Array(roots[firstUnopened...])
        guard !rest.isEmpty else {
            // (every one is open and none maps it: the first says why)
            return .refused(Self.noMapping(label, targets, in: opened.compactMap { $0 }.first ?? self))
        }
        let toOpen = rest.filter { referencedEnvironments[$0] == nil }
        guard toOpen.allSatisfy({ !openingServices.contains($0) }) else {
            return .refused("A value help is being read just now: F4 again in a moment.")
        }
        openingServices.formUnion(toOpen)
        Task { @MainActor [self] in
            var found: (BrowserEnvironment, ValueList)?
            var failure: String?
            var tried: Set<String> = []
            for serviceRoot in rest where found == nil {
                if let service = referencedEnvironments[serviceRoot] {
                    found = Self.mapping(at: targets, in: service).map { (service, $0) }
                    continue
                }
                tried.insert(serviceRoot)
                do {
                    let service = environment(for: try await open(serviceRoot))
                    found = Self.mapping(at: targets, in: service).map { (service, $0) }
                } catch {
                    failure = failure ?? TextSanitizer.sanitize(String(String(describing: error).prefix(300)))
                }
                openingServices.remove(serviceRoot)
            }
            // (those left untried, a service before them having answered: no longer being opened by this lookup)
            openingServices.subtract(toOpen.filter { !tried.contains($0) })
            defer { setNeedsDisplay() }
            if let found { return done(.success(found)) }
            if let failure {
                return done(
                    .failure(ValueHelpRefusal(sentence: "The value help of \(label) could not be read: \(failure)")))
            }
            let first = rest.first.flatMap { referencedEnvironments[$0] } ?? self
            done(.failure(ValueHelpRefusal(sentence: Self.noMapping(label, targets, in: first))))
        }
        return .opening
    }

    /// The value list `service` maps to the first of `targets` it aims at, in a set it has: its unqualified
    /// mapping, else its first.
    static func mapping(at targets: [String], in service: BrowserEnvironment) -> ValueList? {
        service.model.valueListMappings(at: targets).first {
            service.model.entitySet(named: $0.collectionPath) != nil
        }
    }

    /// Why `service` lists no values of the field called `label` (at `targets`).
    static func noMapping(_ label: String, _ targets: [String], in service: BrowserEnvironment) -> String {
        service.model.valueListMappings(at: targets).isEmpty
            ? "The value help of \(label) is not there: its service says nothing of it."
            : "The value help of \(label) is listed in a set its service does not have."
    }
}

/// Why a value help lists nothing (F4 on a form's field, or in `:filter`), in a sentence.
struct ValueHelpRefusal: Error {
    var sentence: String
}
