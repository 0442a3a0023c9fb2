import Foundation

/// How a body says it is OData v4 (`@odata.context`, or a `value` envelope), and how a v4 body and a function's
/// answer of values are read.
extension PayloadDecoder {
    /// Whether a non-empty array holds values rather than entities (its first element is not an object): a
    /// function's answer of strings or numbers, not a collection to file.
    static func holdsValues(_ tape: JSONTape, array: Int) -> Bool {
        tape[array].count > 0 && tape[tape.firstChild(array)].kind != .object
    }

    /// A v4 body: `@odata.context`, or a `value` member beside nothing but annotations.
    func looksVersion4(_ tape: JSONTape) -> Bool {
        if tape.member(0, "@odata.context") != nil { return true }
        return tape.member(0, "value") != nil && isCollectionEnvelope(tape, 0)
    }

    /// Whether object `object` holds `value` and otherwise only annotations (a v4 collection or value answer,
    /// not an entity that has a property called `value`).
    func isCollectionEnvelope(_ tape: JSONTape, _ object: Int) -> Bool {
        var sawValue = false
        var key = tape.firstChild(object)
        for _ in 0..<Int(tape[object].count) {
            if tape.keyEquals(key, "value") {
                sawValue = true
            } else if !tape.isAnnotationKey(key) {
                return false
            }
            key = tape.after(key + 1)
        }
        return sawValue
    }

    /// The type a context URL names after its set (`$metadata#Staff/NS.Mechanic`, `…/NS.Mechanic/$entity`): the
    /// answer to a type-cast request, whose entities need not each say their type. Nil when it names none the model
    /// has (whether the set can hold it is decided where the type is used).
    func castType(inContext context: String?) -> String? {
        guard let model, let context, let hash = context.firstIndex(of: "#") else { return nil }
        // (only the segment right after the set, its select list cut off: `Staff/NS.Mechanic(name)`; what a select
        // list holds, `Staff(Boss/NS.Mechanic/x)`, names no cast of the set)
        let fragment = context[context.index(after: hash)...]
        guard let slash = fragment.firstIndex(of: "/"), !fragment[..<slash].contains("(") else { return nil }
        let rest = fragment[fragment.index(after: slash)...]
        let segment = rest.prefix { $0 != "/" && $0 != "(" }
        return model.entityTypes[String(segment)] != nil ? String(segment) : nil
    }

    func decodeVersion4(tape: JSONTape, entitySet: String?, url: String?) throws(ODataError) -> ODataPayload {
        let context = Context(decoder: self, tape: tape, url: url, version4: true)
        if let node = tape.member(0, "@odata.context"), tape[node].kind == .string {
            context.castType = castType(inContext: tape.string(node))
        }
        if let value = tape.member(0, "value"), isCollectionEnvelope(tape, 0) {
            guard tape[value].kind == .array, !(answersValues && Self.holdsValues(tape, array: value)) else {
                return .value(context.untypedValue(value, depth: 0))
            }
            var collection = try context.collection(
                value, count: tape.member(0, "@odata.count"), next: tape.member(0, "@odata.nextLink"),
                set: entitySet, depth: 0)
            collection.deltaLink = try context.link(tape.member(0, "@odata.deltaLink"), named: "@odata.deltaLink")
            return .collection(collection)
        }
        return .entity(try context.entity(0, set: entitySet, depth: 0))
    }
}
