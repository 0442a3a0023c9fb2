/// Operations in `$metadata` (issue 36): v2 `FunctionImport`s; v4 `Action`s and `Function`s, bound ones as they are
/// declared, unbound ones through the container's `ActionImport`s and `FunctionImport`s (one per overload).
///
/// An operation the model cannot use whole is kept where it can still be shown (a parameter of a type this client
/// does not know keeps that type, and the form says so); one without a name, or an import naming nothing declared,
/// is passed over: a service's operations never make its `$metadata` unusable.
extension EDMXParser.Context {
    func operations(
        imports: [XMLNode], declared: [(node: XMLNode, namespace: String)], version4: Bool
    ) -> [ServiceOperation] {
        guard version4 else { return imports.filter { $0.name == "FunctionImport" }.compactMap(functionImport) }
        var operations: [ServiceOperation] = []
        for (node, namespace) in declared where node.attribute("IsBound") == "true" {
            if let bound = declaredOperation(node, namespace: namespace) { operations.append(bound) }
        }
        for node in imports {
            guard let name = node.attribute("Name"), !name.isEmpty,
                let target = node.attribute(node.name == "ActionImport" ? "Action" : "Function").map(qualify)
            else { continue }
            let kind = node.name == "ActionImport" ? "Action" : "Function"
            for (declaration, namespace) in declared
            where declaration.name == kind && declaration.attribute("IsBound") != "true"
                && namespace + "." + (declaration.attribute("Name") ?? "") == target
            {
                guard var operation = declaredOperation(declaration, namespace: namespace) else { continue }
                operation.name = name
                operation.entitySet = node.attribute("EntitySet").map { String($0.split(separator: "/").last ?? "") }
                operations.append(operation)
            }
        }
        return operations
    }

    /// A v4 `Action` or `Function` element.
    func declaredOperation(_ node: XMLNode, namespace: String) -> ServiceOperation? {
        guard let name = node.attribute("Name"), !name.isEmpty else { return nil }
        let isAction = node.name == "Action"
        let declared = node.children(named: "Parameter")
        // (the binding parameter is the first one declared, whatever becomes of the others)
        let binding = node.attribute("IsBound") == "true" ? declared.first.flatMap(parameter) : nil
        if node.attribute("IsBound") == "true", binding == nil { return nil }
        let parameters = declared.dropFirst(binding == nil ? 0 : 1).compactMap(parameter)
        let returnType = node.child(named: "ReturnType")?.attribute("Type").map {
            EdmTypeReference(parsing: resolvedType($0))
        }
        var operation = ServiceOperation(
            kind: isAction ? .action : .function, name: namespace + "." + name, returnType: returnType,
            method: isAction ? .post : .get, dialect: .v4)
        operation.qualifiedName = namespace + "." + name
        operation.returnScale = node.child(named: "ReturnType")?.attribute("Scale").flatMap { Int($0) }
        if let binding {
            operation.bindingParameter = binding.name
            switch binding.type {
            case .named(let type): operation.boundType = type
            case .collection(.named(let type)):
                operation.boundType = type
                operation.isBoundToCollection = true
            default: return nil  // bound to a primitive value: nothing a screen shows a row of
            }
        }
        operation.parameters = parameters
        operation.isComposable = node.attribute("IsComposable") == "true"
        operation.entitySetPath = node.attribute("EntitySetPath")
        let notes = notes(node.children(named: "Annotation"))
        operation.label = notes.label
        operation.availability = Self.relative(notes.operationAvailable ?? .always, to: binding?.name)
        operation.sideEffects = notes.sideEffects?.relative(to: binding?.name)
        return operation
    }

    /// What a v2 action-for's side effects name the entity it is invoked on (it has no binding parameter).
    static let version2Binding = "_it"

    /// A v4 availability path names the binding parameter first (`car/retirable`); the model's is the bound
    /// entity's property, as v2's `sap:applicable-path` is.
    static func relative(
        _ availability: ServiceOperation.Availability, to binding: String?
    ) -> ServiceOperation.Availability {
        guard case .path(let path) = availability, let binding, path.hasPrefix(binding + "/") else {
            return availability
        }
        return .path(String(path.dropFirst(binding.count + 1)))
    }

    /// Whether an annotation target's signature (`NS.Name(NS.Car)`, `NS.Name(Collection(NS.Car))`,
    /// `NS.Name(Edm.Int32,Edm.String)`, `NS.Name()`) names `operation`'s overload; a target without one names them
    /// all.
    func signature(_ signature: String?, names operation: ServiceOperation) -> Bool {
        guard let signature else { return true }
        var types: [String] = []
        var depth = 0
        var current = ""
        for character in signature {
            if character == "(" { depth += 1 }
            if character == ")" { depth -= 1 }
            if character == ",", depth == 0 {
                types.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { types.append(current) }
        let qualified = types.map { resolvedType($0.filter { !$0.isWhitespace }) }
        if let bound = operation.boundType {
            let binding = operation.isBoundToCollection ? "Collection(\(bound))" : bound
            return qualified.first == binding
        }
        return qualified == operation.parameters.map(\.type.description)
    }

    /// A v2 `FunctionImport`: a function when it is read with `GET` (the default), an action otherwise; bound to the
    /// type its `sap:action-for` names, whose key properties it takes as parameters.
    func functionImport(_ node: XMLNode) -> ServiceOperation? {
        guard let name = node.attribute("Name"), !name.isEmpty else { return nil }
        let verb = (vendor(node, "HttpMethod") ?? "GET").uppercased()
        // (any verb but GET has effects: one this client does not know goes as POST, confirmed like any action)
        let method: RequestMethod = verb == "GET" ? .get : RequestMethod(rawValue: verb) ?? .post
        var operation = ServiceOperation(
            kind: method == .get ? .function : .action, name: name,
            parameters: node.children(named: "Parameter").filter { ($0.attribute("Mode") ?? "In") != "Out" }
                .compactMap(parameter),
            returnType: node.attribute("ReturnType").map { EdmTypeReference(parsing: resolvedType($0)) },
            method: method, dialect: .v2)
        operation.entitySet = node.attribute("EntitySet")
        operation.label = vendor(node, "label")
        operation.boundType = vendor(node, "action-for").map(qualify)
        if let path = vendor(node, "applicable-path"), !path.isEmpty { operation.availability = .path(path) }
        let notes = notes(node.children(named: "Annotation"))
        if let label = notes.label { operation.label = label }
        if let available = notes.operationAvailable { operation.availability = available }
        operation.sideEffects = notes.sideEffects?.relative(to: Self.version2Binding)
        return operation
    }

    /// A parameter's value help and default, as its annotations say.
    static func annotate(_ parameter: inout ServiceOperation.Parameter, with notes: Notes) {
        if let list = notes.valueList { parameter.valueList = list }
        if let fixed = notes.fixedValues { parameter.hasFixedValues = fixed }
        if let value = notes.defaultValue { parameter.defaultValue = value }
        if let references = notes.valueListReferences { parameter.valueListReferences = references }
    }

    func parameter(_ node: XMLNode) -> ServiceOperation.Parameter? {
        guard let name = node.attribute("Name"), !name.isEmpty, let type = node.attribute("Type") else { return nil }
        var parameter = ServiceOperation.Parameter(
            name: name, type: EdmTypeReference(parsing: resolvedType(type)),
            isNullable: node.attribute("Nullable") != "false",
            maxLength: node.attribute("MaxLength").flatMap { Int($0) },
            precision: node.attribute("Precision").flatMap { Int($0) },
            scale: node.attribute("Scale").flatMap { Int($0) }, label: vendor(node, "label"))
        if !enumTypes.isEmpty, !type.hasPrefix("Edm.") { parameter.enumeration = enumTypes[qualify(type)] }
        let notes = notes(node.children(named: "Annotation"))
        if let label = notes.label { parameter.label = label }
        Self.annotate(&parameter, with: notes)
        return parameter
    }

    /// The `UI.DataFieldForAction` records of a `UI.LineItem` or `UI.Identification` collection, in order (at most
    /// ``EDMXParser/Context/maxLineItemFields``); nil when it has none.
    func actionFields(_ annotation: XMLNode) -> [ActionField]? {
        let records = annotation.child(named: "Collection")?.children(named: "Record") ?? []
        var fields: [ActionField] = []
        for record in records.prefix(Self.maxLineItemFields) {
            guard record.attribute("Type").map(qualify) == "com.sap.vocabularies.UI.v1.DataFieldForAction" else {
                continue
            }
            guard let action = value(record, "Action").flatMap(string), !action.isEmpty else { continue }
            fields.append(
                ActionField(
                    action: action.filter { !$0.isWhitespace }, label: value(record, "Label").flatMap(string),
                    isInline: value(record, "Inline").map(bool) ?? false,
                    isDetermining: value(record, "Determining").map(bool) ?? false))
        }
        return fields.isEmpty ? nil : fields
    }

    /// Applies `<Annotations>` that target an operation (`NS.Name`, `NS.Name(NS.Type)`, `Container/Import`) or one
    /// of its parameters (`NS.Name(NS.Type)/parameter`). Returns false when `target` names none.
    func applyToOperation(_ notes: Notes, target: String, in model: inout ServiceModel) -> Bool {
        var parts = target.split(separator: "/", maxSplits: 1).map(String.init)
        guard !parts.isEmpty else { return false }
        let owner = qualify(String(parts[0].prefix { $0 != "(" }))
        var signature: String?
        if let open = parts[0].firstIndex(of: "("), parts[0].hasSuffix(")") {
            signature = String(parts[0][parts[0].index(after: open)..<parts[0].index(before: parts[0].endIndex)])
        }
        var matches = model.operations.indices.filter {
            model.operations[$0].qualifiedName == owner && self.signature(signature, names: model.operations[$0])
        }
        if parts.count == 2, model.containers.contains(where: { $0.name == owner || owner.hasSuffix("." + $0.name) }) {
            // `Container/Import`: the operation the import names (any v2 one, a v4 unbound one).
            let version4 = model.isVersion4
            matches = model.operations.indices.filter {
                model.operations[$0].name == parts[1] && (!version4 || !model.operations[$0].isBound)
            }
            parts.removeLast()
        } else if matches.isEmpty, model.isVersion4 == false {
            matches = model.operations.indices.filter { model.operations[$0].name == owner }
        }
        guard !matches.isEmpty else { return false }
        for index in matches {
            if parts.count == 2 {
                if let parameter = model.operations[index].parameters.firstIndex(where: { $0.name == parts[1] }) {
                    if let label = notes.label { model.operations[index].parameters[parameter].label = label }
                    Self.annotate(&model.operations[index].parameters[parameter], with: notes)
                }
                continue
            }
            if let label = notes.label { model.operations[index].label = label }
            if let available = notes.operationAvailable {
                model.operations[index].availability = Self.relative(
                    available, to: model.operations[index].bindingParameter)
            }
            if let effects = notes.sideEffects {
                let operation = model.operations[index]
                let relative = effects.relative(
                    to: operation.dialect == .v2 ? Self.version2Binding : operation.bindingParameter)
                // (a later source adds to what an earlier one said)
                model.operations[index].sideEffects = operation.sideEffects?.merged(with: relative) ?? relative
            }
        }
        return true
    }
}
