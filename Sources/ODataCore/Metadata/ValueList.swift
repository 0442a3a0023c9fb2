/// `Common.ValueList` (issue 33): where the values a property may take are listed — an entity set of the same
/// service (`CollectionPath`) — and how its properties meet the form's (`Parameters`): an `In` parameter narrows
/// the list by what the form holds, an `Out` or `InOut` one writes the chosen entity's value into the form, a
/// `DisplayOnly` one is shown beside it. `Common.ValueListWithFixedValues` (v2 `sap:value-list="fixed-values"`)
/// says the list is short and closed: a value not in it is refused.
public struct ValueList: Sendable, Hashable {
    /// The entity set that lists the values (in this service).
    public var collectionPath: String
    public var label: String?
    public var parameters: [Parameter]

    public struct Parameter: Sendable, Hashable {
        public enum Kind: String, Sendable, Hashable {
            case `in` = "In"
            case out = "Out"
            case inOut = "InOut"
            case displayOnly = "DisplayOnly"
        }

        public var kind: Kind
        /// The form's property (nil for `DisplayOnly`).
        public var localProperty: String?
        /// The value list's property.
        public var valueListProperty: String

        public init(kind: Kind, localProperty: String?, valueListProperty: String) {
            self.kind = kind
            self.localProperty = localProperty
            self.valueListProperty = valueListProperty
        }
    }

    public init(collectionPath: String, label: String? = nil, parameters: [Parameter]) {
        self.collectionPath = collectionPath
        self.label = label
        self.parameters = parameters
    }

    /// What a chosen entity writes into the form: (form property, value list property), `Out` and `InOut`.
    public var outputs: [(local: String, from: String)] {
        parameters.compactMap { parameter in
            guard parameter.kind == .out || parameter.kind == .inOut, let local = parameter.localProperty else {
                return nil
            }
            return (local, parameter.valueListProperty)
        }
    }

    /// What narrows the list by the form's values: (form property, value list property), `In` only (an `InOut`
    /// holds what is being chosen, which is not a condition on the choice).
    public var inputs: [(local: String, to: String)] {
        parameters.compactMap { parameter in
            guard parameter.kind == .in, let local = parameter.localProperty else { return nil }
            return (local, parameter.valueListProperty)
        }
    }

    /// The most parameters one value list is read with.
    static let maxParameters = 32
}

extension ValueList {
    /// Read from a `Common.ValueList` annotation's record; nil without a collection path or without a parameter
    /// that writes a value back (a list that can fill in nothing is no help). `qualify` resolves a record's type.
    init?(annotation node: XMLNode, qualify: (String) -> String) {
        guard let record = node.child(named: "Record") else { return nil }
        let values = record.children(named: "PropertyValue")
        func string(_ name: String) -> String? {
            guard let value = values.first(where: { $0.attribute("Property") == name }) else { return nil }
            return value.attribute("String") ?? value.child(named: "String")?.text
        }
        guard let collection = string("CollectionPath")?.filter({ !$0.isWhitespace }), !collection.isEmpty,
            !collection.contains("/")
        else { return nil }
        let records =
            values.first { $0.attribute("Property") == "Parameters" }?.child(named: "Collection")?
            .children(named: "Record") ?? []
        var parameters: [Parameter] = []
        for parameter in records.prefix(Self.maxParameters) {
            // (`Common.ValueListParameterInOut` and its kin; a constant or a filter-only one is not read)
            let type = parameter.attribute("Type").map(qualify)?.split(separator: ".").last.map(String.init) ?? ""
            let prefix = "ValueListParameter"
            guard type.hasPrefix(prefix), let kind = Parameter.Kind(rawValue: String(type.dropFirst(prefix.count)))
            else { continue }
            let properties = parameter.children(named: "PropertyValue")
            func text(_ name: String, _ kinds: [String]) -> String? {
                guard let value = properties.first(where: { $0.attribute("Property") == name }) else { return nil }
                for kind in kinds {
                    if let text = value.attribute(kind) ?? value.child(named: kind)?.text {
                        let trimmed = String(text.filter { !$0.isWhitespace })
                        return trimmed.isEmpty ? nil : trimmed
                    }
                }
                return nil
            }
            guard let listed = text("ValueListProperty", ["String", "PropertyPath", "Path"]), !listed.contains("/")
            else { continue }
            let local = text("LocalDataProperty", ["PropertyPath", "Path", "String"])
            if kind != .displayOnly, local.map({ $0.contains("/") }) ?? true { continue }
            parameters.append(Parameter(kind: kind, localProperty: local, valueListProperty: listed))
        }
        self.init(collectionPath: collection, label: string("Label"), parameters: parameters)
        if outputs.isEmpty { return nil }
    }
}
