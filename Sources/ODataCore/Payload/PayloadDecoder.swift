/// Decodes OData JSON — v2's verbose form (`{"d": …}`) and v4's (`{"value": […]}`) — the one parser every response
/// goes through.
///
/// v2: every shape real servers send (see `ODATA-V2.md`): single entities,
/// v1 plain arrays, v2 `results` with `__count` (string or number) and `__next`
/// (string or `{uri}`), expanded navigations in both shapes, `__deferred`, and
/// optional `__metadata`. v4: `value` collections with `@odata.count` and `@odata.nextLink`, single entities,
/// `@odata.etag`/`@odata.type`/`@odata.id`, expanded navigations as bare objects or arrays (with
/// `Name@odata.nextLink` when partial), numbers as numbers or `IEEE754Compatible` strings; other annotations
/// are skipped. Values are typed by the ``ServiceModel`` when the
/// type is known, best effort otherwise. Nothing here traps: bad input is an
/// ``ODataError`` of kind ``ODataError/Kind/malformedPayload``.
public struct PayloadDecoder: Sendable {
    /// 20,000: a page the fetcher asks for holds 50 rows and what one level of `$expand` brings with them.
    public static let defaultMaxEntities = 20_000

    public let serviceRoot: String
    public let model: ServiceModel?
    /// The most entities one answer may hold, nested ones included; more is refused
    /// (``ODataError/Kind/refused``) before any is decoded where the count shows in an array's length.
    public var maxEntities: Int
    /// The dialect answers must be in (the model's); an answer in the other one is refused with a sentence.
    /// Nil (no model): either, told apart by shape.
    public var dialect: ODataDialect?
    /// The answer may be a list of values (a function's), not only of entities: a list of strings or numbers is
    /// then a value, where otherwise it is a malformed collection.
    public var answersValues = false
    let reader = JSONReader()

    public init(
        serviceRoot: String, model: ServiceModel? = nil, maxEntities: Int = defaultMaxEntities,
        dialect: ODataDialect? = nil
    ) {
        self.serviceRoot = serviceRoot
        self.model = model
        self.maxEntities = maxEntities
        self.dialect = dialect ?? model?.dialect
    }

    /// Decodes a response body. `entitySet` is the set the request addressed
    /// (e.g. `PersonCar` for `Person(1)/PersonCar`), used when entities carry no `__metadata`.
    public func decode(
        _ bytes: some Collection<UInt8>, entitySet: String? = nil, url: String? = nil
    ) throws(ODataError) -> ODataPayload {
        let tape: JSONTape
        do {
            tape = try JSONTape(Array(bytes), maximumDepth: reader.maximumDepth)
        } catch {
            throw ODataError(kind: .malformedPayload, message: error.description, url: url)
        }
        return try decode(tape: tape, entitySet: entitySet, url: url)
    }

    func decode(tape: JSONTape, entitySet: String?, url: String?) throws(ODataError) -> ODataPayload {
        guard tape[0].kind == .object else {
            throw malformed("the body is \(tape.kindName(0)), not an object with a \"d\" member", url)
        }
        if let error = tape.member(0, "error") ?? tape.member(0, "odata.error") {
            throw ODataError.fromErrorObject(JSONReader.materialise(tape, error), status: nil, url: url)
        }
        let d = tape.member(0, "d")
        switch (dialect, d) {
        case (.v4?, .some):
            throw malformed(
                "the body is OData v2 (a \"d\" member) but the service's $metadata says OData v4", url)
        case (.v4?, nil):
            return try decodeVersion4(tape: tape, entitySet: entitySet, url: url)
        case (nil, nil) where looksVersion4(tape):
            return try decodeVersion4(tape: tape, entitySet: entitySet, url: url)
        case (.v2?, nil) where looksVersion4(tape):
            throw malformed(
                "the body is OData v4 (\"value\" or \"@odata.context\", no \"d\") but the service's $metadata "
                    + "says OData v2", url)
        default:
            break
        }
        guard let d else {
            var names: [String] = []
            var child = tape.firstChild(0)
            for _ in 0..<min(5, Int(tape[0].count)) {
                names.append(tape.string(child))
                child = tape.after(child + 1)
            }
            throw malformed("the body has no \"d\" member (members: \(names.joined(separator: ", ")))", url)
        }
        let context = Context(decoder: self, tape: tape, url: url)
        switch tape[d].kind {
        case .array where answersValues && Self.holdsValues(tape, array: d):
            return .value(context.untypedValue(d, depth: 0))
        case .array:
            return .collection(try context.collection(d, count: nil, next: nil, set: entitySet, depth: 0))
        case .object:
            if answersValues, let results = tape.member(d, "results"), tape[results].kind == .array,
                Self.holdsValues(tape, array: results)
            {
                // (a function's answer of values: `{"d": {"results": ["a", "b"]}}`)
                return .value(context.untypedValue(results, depth: 0))
            }
            if let results = tape.member(d, "results"), tape[results].kind == .array {
                var collection = try context.collection(
                    results, count: tape.member(d, "__count"), next: tape.member(d, "__next"), set: entitySet,
                    depth: 0)
                collection.deltaLink = try context.link(tape.member(d, "__delta"), named: "__delta")
                return .collection(collection)
            }
            return .entity(try context.entity(d, set: entitySet, depth: 0))
        default:
            return .value(context.untypedValue(d, depth: 0))
        }
    }

    func malformed(_ message: String, _ url: String?) -> ODataError {
        ODataError(kind: .malformedPayload, message: message, url: url)
    }
}
