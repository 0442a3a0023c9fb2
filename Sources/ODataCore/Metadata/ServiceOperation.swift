/// What a service offers to do besides reading and writing entities (issue 36): a v2 `FunctionImport`, or a v4
/// `Action` or `Function` — bound to an entity type, or unbound and reached through the container's
/// `ActionImport` or `FunctionImport`.
///
/// A function has no effects (sent as `GET`, safe to repeat, nothing to confirm); an action has (`POST`, sent once,
/// after the user confirms it). A v2 function import is one or the other by its `m:HttpMethod`.
public struct ServiceOperation: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case function, action
    }

    /// When the service says it may be invoked: always, never, or while a Boolean property of the bound entity is
    /// true (v2 `sap:applicable-path`, v4 `Core.OperationAvailable` with a path).
    public enum Availability: Sendable, Hashable {
        case always
        case never
        case path(String)
    }

    /// One input of the operation (a v4 binding parameter is not one: it is the entity it is invoked on).
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var type: EdmTypeReference
        public var isNullable: Bool
        public var maxLength: Int?
        public var precision: Int?
        public var scale: Int?
        /// `sap:label` or `Common.Label`.
        public var label: String?
        /// `Common.ValueList` of the parameter (its `LocalDataProperty` paths name parameters), and whether
        /// `Common.ValueListWithFixedValues` says no other value is taken.
        public var valueList: ValueList?
        public var hasFixedValues = false
        /// `Common.ValueListReferences`: the `$metadata` of value-help services, relative to this service's (see
        /// ``ValueListReference``); each aims its mapping at one of ``ServiceOperation/valueListTargets(of:)``.
        public var valueListReferences: [String] = []
        /// `Core.OptionalParameter`'s `DefaultValue`: what the service takes when the parameter is left out, which
        /// the parameter form starts with.
        public var defaultValue: String?

        public init(
            name: String, type: EdmTypeReference, isNullable: Bool = true, maxLength: Int? = nil,
            precision: Int? = nil, scale: Int? = nil, label: String? = nil
        ) {
            self.name = name
            self.type = type
            self.isNullable = isNullable
            self.maxLength = maxLength
            self.precision = precision
            self.scale = scale
            self.label = label
        }

        /// The enum type the parameter is of (its members are its values, written `NS.Type'Member'` in a URL).
        public var enumeration: EnumType?

        /// The primitive type a form parses the parameter's text as (an enum's member is text); nil for a complex,
        /// entity or collection one (which a form cannot take, and says so).
        public var primitiveType: EdmPrimitiveType? {
            if case .primitive(let primitive) = type { return primitive }
            return enumeration == nil ? nil : .string
        }

        /// The parameter's value as a v4 URL literal: an enum's member as `NS.Type'Member'`, others typed.
        func literal(_ value: ODataValue) -> String? {
            if let enumeration, case .string(let member) = value { return enumeration.literal(member) }
            return ODataLiteral.format(value, as: primitiveType, dialect: .v4)
        }
    }

    public var kind: Kind
    /// What names it in a URL: a v2 import's name; a v4 unbound one's import name; a v4 bound one's qualified name
    /// (`NS.Name`).
    public var name: String
    /// v4: the action's or function's qualified name (for an unbound one, what its import names).
    public var qualifiedName: String?
    /// `sap:label` or `Common.Label`: what a person calls it.
    public var label: String?
    public var parameters: [Parameter]
    /// The entity type it acts on: a v4 binding parameter's type, or a v2 `sap:action-for` (whose key properties
    /// are then among `parameters`). Nil when unbound.
    public var boundType: String?
    /// v4: bound to a collection of `boundType` (invoked on a list, not a row).
    public var isBoundToCollection = false
    /// v4: the binding parameter's name (the first parameter of a bound operation).
    public var bindingParameter: String?
    /// What it answers with; nil for nothing (`204`).
    public var returnType: EdmTypeReference?
    /// v4 `ReturnType`'s `Scale`: the places a decimal answer has (nil when not given, or `variable`).
    public var returnScale: Int?
    /// The entity set its entity results belong to: a v2 `EntitySet` or a v4 import's.
    public var entitySet: String?
    /// v4 `EntitySetPath` (`binding/Navigation`): its results are reached from the bound entity.
    public var entitySetPath: String?
    /// The HTTP verb: v2 `m:HttpMethod` (`GET` unless the service says otherwise); v4 `GET` for a function, `POST`
    /// for an action.
    public var method: RequestMethod
    /// v4 `IsComposable`: its result can be read further (filtered, navigated).
    public var isComposable = false
    public var availability: Availability = .always
    /// `Common.SideEffects`: what invoking it may change besides its answer, relative to the bound entity.
    public var sideEffects: SideEffects?
    public var dialect: ODataDialect

    public init(
        kind: Kind, name: String, parameters: [Parameter] = [], returnType: EdmTypeReference? = nil,
        method: RequestMethod, dialect: ODataDialect
    ) {
        self.kind = kind
        self.name = name
        self.parameters = parameters
        self.returnType = returnType
        self.method = method
        self.dialect = dialect
    }

    /// What a person sees it called.
    public var displayName: String {
        if let label, !label.isEmpty { return label }
        return name.split(separator: ".").last.map(String.init) ?? name
    }

    /// The annotation targets a value-help service may aim a parameter's `Common.ValueListMapping` at, the most
    /// exact first: an action's overload, `NS.Action(NS.BindingType)/parameter` (`()` for an unbound one), then
    /// `NS.Action/parameter` (every overload); a function's every overload only (its overloads are told apart by all
    /// their parameters' types). None for a v2 function import (value-help services are v4).
    public func valueListTargets(of parameter: String) -> [String] {
        guard let qualifiedName, dialect == .v4 else { return [] }
        guard kind == .action else { return ["\(qualifiedName)/\(parameter)"] }
        let binding = boundType.map { isBoundToCollection ? "Collection(\($0))" : $0 } ?? ""
        return ["\(qualifiedName)(\(binding))/\(parameter)", "\(qualifiedName)/\(parameter)"]
    }

    /// Whether it is invoked on an entity (or, v4, a list of them) rather than on the service.
    public var isBound: Bool { boundType != nil }

    /// Whether a call of it reads a list of entities of one set, opened as a list screen (cached like any list,
    /// keyed by the call): an unbound function whose results are a collection of the entities of `entitySet`.
    public var listsEntities: Bool {
        guard kind == .function, !isBound, entitySet != nil, case .collection(.named)? = returnType else {
            return false
        }
        return true
    }

    /// Whether a call of it reads one answer that is not a list to browse (one entity, or a value: a number, a text,
    /// a record, values), shown as a screen of its own and cached under the call: a function with a result, on the
    /// service or on one entity, that is not a collection of entities.
    public var answersOne: Bool {
        guard kind == .function, let returnType, !listsEntities, !isBoundToCollection else { return false }
        // (a collection of a named type with no set to hold it is of records: values)
        if case .collection(.named) = returnType { return entitySet == nil }
        return true
    }

    /// What the outbox records it as, to find it again in the model (``ServiceModel/operation(queuedAs:on:)``): a
    /// bound one's qualified name (v2: its import's name), a v4 unbound one's import name after a `/`, a v2 unbound
    /// one's import name.
    public var queuedName: String {
        guard isBound || dialect == .v2 else { return "/" + name }
        return dialect == .v4 ? (qualifiedName ?? name) : name
    }

    /// The parameters a person fills in: a v2 action-for's key properties come from the entity it is invoked on.
    public func inputs(keyNames: [String] = []) -> [Parameter] {
        guard dialect == .v2, boundType != nil else { return parameters }
        return parameters.filter { !keyNames.contains($0.name) }
    }
}

extension ServiceModel {
    /// The entity set the list at a path's first segment holds: the set of that name, or the one an unbound
    /// function that lists entities reads (``ServiceOperation/listsEntities``).
    public func listedSet(ofSegment name: String) -> String? {
        if entitySet(named: name) != nil { return name }
        return unboundOperations.first { $0.name == name && $0.listsEntities }?.entitySet
    }

    /// The operations invoked on the service itself (a list screen's own section, the palette by name).
    public var unboundOperations: [ServiceOperation] {
        operations.filter { !$0.isBound }
    }

    /// The operation a `UI.DataFieldForAction` names: `NS.Name` (v4's qualified name, bound to `typeName` or a
    /// type it derives from when given), `Container/Import` or `Import` (an import, v2's or v4's).
    public func operation(named action: String, boundTo typeName: String? = nil) -> ServiceOperation? {
        let name = String(action.split(separator: "/").last ?? "")
        if action.contains("/") || !isVersion4 {
            return operations.first { $0.name == name && ($0.dialect == .v2 || !$0.isBound) }
        }
        if let typeName, let bound = operations(boundTo: typeName).first(where: { $0.qualifiedName == action }) {
            return bound
        }
        return operations.first { $0.qualifiedName == action }
    }

    /// The operation the outbox recorded as `name` (``ServiceOperation/queuedName``): invoked on a list of
    /// `entitySet` when given (bound to a collection of its type), else on the service.
    public func operation(queuedAs name: String, on entitySet: String?) -> ServiceOperation? {
        guard let entitySet else {
            // (the import's whole name: one with a `/` in it is not another's)
            if name.hasPrefix("/") { return operations.first { !$0.isBound && "/" + $0.name == name } }
            return operations.first { $0.dialect == .v2 && !$0.isBound && $0.name == name }
        }
        guard let type = entityType(ofSet: entitySet) else { return nil }
        return operations(boundTo: type.qualifiedName, collection: true).first {
            ($0.qualifiedName ?? $0.name) == name
        }
    }

    /// The operations invoked on one entity of `typeName` (or of a type it derives from); `collection`: those
    /// invoked on a list of them instead.
    public func operations(boundTo typeName: String, collection: Bool = false) -> [ServiceOperation] {
        var types: [String] = []
        var next: String? = typeName
        while let name = next, !types.contains(name) {
            types.append(name)
            next = entityTypes[name]?.baseType
        }
        return operations.filter { operation in
            guard let bound = operation.boundType, types.contains(bound) else { return false }
            return operation.isBoundToCollection == collection
        }
    }
}
