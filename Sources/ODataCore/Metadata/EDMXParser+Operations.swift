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
        var parameters = node.children(named: "Parameter").compactMap(parameter)
        let returnType = node.child(named: "ReturnType")?.attribute("Type").map {
            EdmTypeReference(parsing: resolvedType($0))
        }
        var operation = ServiceOperation(
            kind: isAction ? .action : .function, name: namespace + "." + name, returnType: returnType,
            method: isAction ? .post : .get, dialect: .v4)
        operation.qualifiedName = namespace + "." + name
        if node.attribute("IsBound") == "true" {
            guard !parameters.isEmpty else { return nil }
            let binding = parameters.removeFirst()
            operation.bindingParameter = binding.name
            switch binding.type {
            case .named(let type): operation.boundType = type
            case .collection(.named(let type)):
                operation.boundType = type
                operation.isBoundToCollection = true
            default: return nil  // bound to a primitive or complex value: nothing a screen shows a row of
            }
        }
        operation.parameters = parameters
        operation.isComposable = node.attribute("IsComposable") == "true"
        operation.entitySetPath = node.attribute("EntitySetPath")
        let notes = notes(node.children(named: "Annotation"))
        operation.label = notes.label
        operation.availability = notes.operationAvailable ?? .always
        return operation
    }

    /// A v2 `FunctionImport`: a function when it is read with `GET` (the default), an action otherwise; bound to the
    /// type its `sap:action-for` names, whose key properties it takes as parameters.
    func functionImport(_ node: XMLNode) -> ServiceOperation? {
        guard let name = node.attribute("Name"), !name.isEmpty else { return nil }
        let verb = (vendor(node, "HttpMethod") ?? "GET").uppercased()
        let method: RequestMethod = verb == "POST" ? .post : verb == "PUT" ? .put : verb == "DELETE" ? .delete : .get
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
        return operation
    }

    func parameter(_ node: XMLNode) -> ServiceOperation.Parameter? {
        guard let name = node.attribute("Name"), !name.isEmpty, let type = node.attribute("Type") else { return nil }
        var parameter = ServiceOperation.Parameter(
            name: name, type: EdmTypeReference(parsing: resolvedType(type)),
            isNullable: node.attribute("Nullable") != "false",
            maxLength: node.attribute("MaxLength").flatMap { Int($0) },
            precision: node.attribute("Precision").flatMap { Int($0) },
            scale: node.attribute("Scale").flatMap { Int($0) }, label: vendor(node, "label"))
        if let label = notes(node.children(named: "Annotation")).label { parameter.label = label }
        return parameter
    }

    /// Applies `<Annotations>` that target an operation (`NS.Name`, `NS.Name(NS.Type)`, `Container/Import`) or one
    /// of its parameters (`NS.Name(NS.Type)/parameter`). Returns false when `target` names none.
    func applyToOperation(_ notes: Notes, target: String, in model: inout ServiceModel) -> Bool {
        var parts = target.split(separator: "/", maxSplits: 1).map(String.init)
        guard !parts.isEmpty else { return false }
        let owner = qualify(String(parts[0].prefix { $0 != "(" }))
        var matches = model.operations.indices.filter { model.operations[$0].qualifiedName == owner }
        if parts.count == 2, model.containers.contains(where: { $0.name == owner || owner.hasSuffix("." + $0.name) }) {
            // `Container/Import`: the operation the import names (v2, or a v4 unbound one).
            matches = model.operations.indices.filter {
                model.operations[$0].name == parts[1] && !model.operations[$0].isBound
            }
            parts.removeLast()
        } else if matches.isEmpty, model.isVersion4 == false {
            matches = model.operations.indices.filter { model.operations[$0].name == owner }
        }
        guard !matches.isEmpty else { return false }
        for index in matches {
            if parts.count == 2 {
                if let label = notes.label,
                    let parameter = model.operations[index].parameters.firstIndex(where: { $0.name == parts[1] })
                {
                    model.operations[index].parameters[parameter].label = label
                }
                continue
            }
            if let label = notes.label { model.operations[index].label = label }
            if let available = notes.operationAvailable { model.operations[index].availability = available }
        }
        return true
    }
}
