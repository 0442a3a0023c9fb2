/// The request that invokes a ``ServiceOperation`` (issue 36), as a value, in both dialects.
///
/// * **v2** function import: its verb (`m:HttpMethod`) on `Root/Import?Name=literal&…`, every parameter a URI
///   literal in the query (`'text'`, `datetime'…'`, `12`); a `sap:action-for` one takes the entity's key
///   properties as parameters of their own names.
/// * **v4 function**: `GET Root/Import(name=@name,…)?@name=literal` — aliases keep the literals out of the path;
///   bound, `Root/Set(key)/NS.Name(…)` (or on a list, `Root/Set/NS.Name(…)`). Every parameter is named, an empty
///   one as `null` (the names pick the overload).
/// * **v4 action**: `POST Root/Import` (bound, `Root/Set(key)/NS.Name`) with the parameters as a JSON object.
///
/// An action carries its attempt's repeatability headers, as a write does: sent again after a lost answer, a service
/// that keeps request ids runs it once.
public struct OperationRequestBuilder: Sendable {
    public var urls: ODataURLBuilder

    public init(urls: ODataURLBuilder) {
        self.urls = urls
    }

    /// `operation` with `arguments` (by parameter name; one left out is not sent), invoked on `entity` when it is
    /// bound to one (`keyNames`: v2, the names of its key properties, which it takes as parameters), or on the list
    /// `collection` when bound to a collection.
    public func request(
        _ operation: ServiceOperation, arguments: [ODataProperty], on entity: EntityKey? = nil,
        collection: ResourcePath? = nil, keyNames: [String] = [], attempt: WriteRequestBuilder.Attempt? = nil
    ) throws(OperationCallError) -> TransportRequest {
        var given: [String: ODataValue] = [:]
        for argument in arguments { given[argument.name] = argument.value }
        for parameter in operation.inputs(keyNames: keyNames)
        where !parameter.isNullable && (given[parameter.name] ?? .null) == .null {
            throw OperationCallError(
                description: "\(operation.displayName) needs a value for \(parameter.label ?? parameter.name).")
        }
        var request: TransportRequest
        switch operation.dialect {
        case .v2:
            if operation.isBound {
                guard let entity else {
                    throw OperationCallError(description: "\(operation.displayName) is invoked on one entity.")
                }
                for (index, value) in entity.values.enumerated() {
                    guard let name = value.name ?? (index < keyNames.count ? keyNames[index] : nil) else {
                        throw OperationCallError(
                            description:
                                "\(operation.displayName) takes the key of \(entity), whose names are not known.")
                    }
                    given[name] = value.value
                }
            }
            var query: [String] = []
            for parameter in operation.parameters {
                guard let value = given[parameter.name], value != .null else { continue }
                guard let literal = ODataLiteral.format(value, as: parameter.primitiveType, dialect: .v2) else {
                    throw Self.cannotSend(parameter, of: operation)
                }
                query.append(
                    PercentEncoding.encodeQueryValue(parameter.name) + "="
                        + PercentEncoding.encodeQueryValue(literal))
            }
            let url = urls.serviceRoot + PercentEncoding.encodeSegmentName(operation.name)
            request = TransportRequest(
                method: operation.method, url: url + (query.isEmpty ? "" : "?" + query.joined(separator: "&")),
                dialect: .v2)
        case .v4:
            var path = try target(of: operation, entity: entity, collection: collection)
            if operation.kind == .function {
                var aliases: [String] = []
                var query: [String] = []
                // Every parameter is named (one left out would name another overload, or none): an empty one as
                // null.
                for parameter in operation.parameters {
                    let value = given[parameter.name] ?? .null
                    guard parameter.primitiveType != nil || value == .null, let literal = parameter.literal(value)
                    else { throw Self.cannotSend(parameter, of: operation) }
                    let name = PercentEncoding.encodeQueryValue(parameter.name)
                    aliases.append(name + "=@" + name)
                    query.append("@" + name + "=" + PercentEncoding.encodeQueryValue(literal))
                }
                path += "(" + aliases.joined(separator: ",") + ")"
                request = TransportRequest(
                    method: .get, url: path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), dialect: .v4)
            } else {
                request = TransportRequest(method: .post, url: path, dialect: .v4)
                let sent = operation.parameters.compactMap { parameter in
                    given[parameter.name].map { ODataProperty(name: parameter.name, value: $0) }
                }
                var types: [String: EdmPrimitiveType] = [:]
                for parameter in operation.parameters { types[parameter.name] = parameter.primitiveType }
                request.headers["Content-Type"] = "application/json"
                request.body = RequestBodyEncoder.object(sent, types: types, dialect: .v4)
            }
        }
        if operation.kind == .action, let attempt {
            request.headers["Repeatability-Request-ID"] = attempt.requestID
            request.headers["Repeatability-First-Sent"] = HTTPDate.format(attempt.firstSent)
            if let etag = attempt.etag, operation.isBound { request.headers["If-Match"] = etag }
        }
        return request
    }

    /// Where the list a call of `operation` reads is (``ServiceOperation/listsEntities``): v4, a path that calls it
    /// with every parameter named by an alias, the typed literals as query options (an empty one `null`); v2, the
    /// import with its parameters as query options. The
    /// list screen pages, filters and sorts it as any other, and the cache keeps it under the call.
    public static func resultList(
        _ operation: ServiceOperation, arguments: [ODataProperty]
    ) throws(OperationCallError) -> (path: ResourcePath, parameters: [(name: String, value: String)]) {
        guard operation.listsEntities else {
            throw OperationCallError(description: "\(operation.displayName) does not answer with a list to browse.")
        }
        return try call(operation, arguments: arguments)
    }

    /// Where a call of the function `operation` with `arguments` is read, on `entity` when it is bound to one
    /// (`keyNames`: v2, the names of its key properties, which it takes as parameters): the path (v4, every
    /// parameter named by an alias; bound, after the entity's own path) and the query options that carry the
    /// parameters (v4 the aliases' typed literals, an empty one `null`; v2 the parameters themselves). A list keyed
    /// by these is the call's answer, as a list or as one (``ServiceOperation/answersOne``).
    public static func call(
        _ operation: ServiceOperation, arguments: [ODataProperty], on entity: EntityKey? = nil, keyNames: [String] = []
    ) throws(OperationCallError) -> (path: ResourcePath, parameters: [(name: String, value: String)]) {
        if operation.isBound, entity == nil || operation.isBoundToCollection {
            throw OperationCallError(description: "\(operation.displayName) is invoked on one entity.")
        }
        var given: [String: ODataValue] = [:]
        for argument in arguments { given[argument.name] = argument.value }
        for parameter in operation.inputs(keyNames: entity == nil ? [] : keyNames)
        where !parameter.isNullable && (given[parameter.name] ?? .null) == .null {
            throw OperationCallError(
                description: "\(operation.displayName) needs a value for \(parameter.label ?? parameter.name).")
        }
        switch operation.dialect {
        case .v4:
            var names: [EntityKey.KeyValue] = []
            var aliases: [(name: String, value: String)] = []
            for parameter in operation.parameters {
                let value = given[parameter.name] ?? .null
                guard parameter.primitiveType != nil || value == .null, let literal = parameter.literal(value)
                else { throw cannotSend(parameter, of: operation) }
                names.append(EntityKey.KeyValue(name: parameter.name, value: .null))
                aliases.append(("@" + parameter.name, literal))
            }
            let called = ResourcePath.Segment(name: operation.name, key: names, isCall: true)
            guard let entity else { return (ResourcePath(segments: [called]), aliases) }
            return (ResourcePath(segments: ResourcePath(entity).segments + [called]), aliases)
        case .v2:
            var query: [(name: String, value: String)] = []
            var keyNamesGiven: [String] = []
            if let entity {
                // (an action-for's key properties are parameters of its own, typed as those parameters are)
                for (index, value) in entity.values.enumerated() {
                    guard let name = value.name ?? (index < keyNames.count ? keyNames[index] : nil) else {
                        throw OperationCallError(
                            description:
                                "\(operation.displayName) takes the key of \(entity), whose names are not known.")
                    }
                    given[name] = value.value
                    keyNamesGiven.append(name)
                }
            }
            for name in keyNamesGiven where !operation.parameters.contains(where: { $0.name == name }) {
                guard let value = given[name], let literal = ODataLiteral.format(value, as: nil, dialect: .v2) else {
                    continue
                }
                query.append((name, literal))
            }
            for parameter in operation.parameters {
                guard let value = given[parameter.name], value != .null else { continue }
                guard let literal = ODataLiteral.format(value, as: parameter.primitiveType, dialect: .v2) else {
                    throw cannotSend(parameter, of: operation)
                }
                query.append((parameter.name, literal))
            }
            return (ResourcePath(entitySet: operation.name), query)
        }
    }

    /// v4: the URL the operation is invoked at, without its parameters.
    func target(
        of operation: ServiceOperation, entity: EntityKey?, collection: ResourcePath?
    ) throws(OperationCallError) -> String {
        guard operation.isBound else { return urls.serviceRoot + PercentEncoding.encodeSegmentName(operation.name) }
        let on: String
        if operation.isBoundToCollection {
            guard let collection else {
                throw OperationCallError(description: "\(operation.displayName) is invoked on a list.")
            }
            on = urls.url(collection)
        } else {
            guard let entity else {
                throw OperationCallError(description: "\(operation.displayName) is invoked on one entity.")
            }
            on = urls.url(ResourcePath(entity))
        }
        return on + "/" + PercentEncoding.encodeSegmentName(operation.qualifiedName ?? operation.name)
    }

    static func cannotSend(
        _ parameter: ServiceOperation.Parameter, of operation: ServiceOperation
    )
        -> OperationCallError
    {
        OperationCallError(
            description: "\(operation.displayName) takes \(parameter.label ?? parameter.name) as \(parameter.type), "
                + "which this browser cannot send.")
    }
}

/// Why an operation cannot be invoked as asked: a sentence for the form.
public struct OperationCallError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}
