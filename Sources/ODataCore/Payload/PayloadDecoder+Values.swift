import Foundation

extension PayloadDecoder.Context {
    /// A value whose declared type is known; a value of the wrong shape is an error naming the property.
    func typedValue(_ value: Int, type: EdmTypeReference, name: String, depth: Int) throws(ODataError) -> ODataValue {
        let kind = tape[value].kind
        if kind == .null { return .null }
        func wrong() -> ODataError {
            malformed("the property \(name) should be \(type) but is \(describe(value))")
        }
        switch type {
        case .primitive(let edmType):
            guard let typed = primitive(value, as: edmType) else { throw wrong() }
            return typed
        case .named(let typeName):
            // A type the document never declares (a dangling reference) is read for what it is.
            guard model?.complexTypes[typeName] != nil else { return untypedValue(value, depth: depth) }
            guard kind == .object else { throw wrong() }
            let declared = model?.complexTypes[typeName]?.properties ?? []
            var members: [ODataProperty] = []
            var key = tape.firstChild(value)
            for _ in 0..<tape[value].count {
                let member = key + 1
                defer { key = tape.after(member) }
                if tape.isReservedKey(key) || (version4 && tape.isAnnotationKey(key)) { continue }
                let memberName = tape.string(key)
                if let property = declared.first(where: { $0.name == memberName }) {
                    members.append(
                        ODataProperty(
                            name: memberName,
                            value: try typedValue(
                                member, type: property.type, name: name + "/" + memberName, depth: depth + 1)
                        ))
                } else {
                    members.append(ODataProperty(name: memberName, value: untypedValue(member, depth: depth + 1)))
                }
            }
            return .complex(members)
        case .collection(let element):
            let array: Int
            if kind == .array {
                array = value
            } else if kind == .object, let results = tape.member(value, "results"), tape[results].kind == .array {
                array = results
            } else {
                throw wrong()
            }
            var result: [ODataValue] = []
            var item = tape.firstChild(array)
            for _ in 0..<tape[array].count {
                result.append(try typedValue(item, type: element, name: name, depth: depth + 1))
                item = tape.after(item)
            }
            return .collection(result)
        case .unknown:
            return untypedValue(value, depth: depth)
        }
    }

    func describe(_ value: Int) -> String {
        switch tape[value].kind {
        case .string:
            let text = tape.string(value)
            return "the string \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        case .number: return "the number \(tape.string(value).prefix(40))"
        default: return tape.kindName(value)
        }
    }

    /// Reads a primitive from any of the forms servers use; nil when it is none of them.
    func primitive(_ value: Int, as type: EdmPrimitiveType) -> ODataValue? {
        switch tape[value].kind {
        case .true: return Self.primitive(.bool(true), as: type)
        case .false: return Self.primitive(.bool(false), as: type)
        case .number: return Self.primitive(.number(tape.string(value)), as: type)
        case .string: return Self.primitive(.string(tape.string(value)), as: type)
        default: return nil
        }
    }

    /// Reads a primitive from any of the forms servers use; nil when it is none of them.
    static func primitive(_ value: JSONValue, as type: EdmPrimitiveType) -> ODataValue? {
        switch (type, value) {
        case (.boolean, .bool(let flag)): return .bool(flag)
        case (.boolean, .string(let text)): return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case (.byte, .number(let text)), (.byte, .string(let text)),
            (.sByte, .number(let text)), (.sByte, .string(let text)),
            (.int16, .number(let text)), (.int16, .string(let text)),
            (.int32, .number(let text)), (.int32, .string(let text)),
            (.int64, .number(let text)), (.int64, .string(let text)):
            return integer(text).map(ODataValue.int)
        case (.decimal, .number(let text)), (.decimal, .string(let text)):
            return DecimalText.canonical(text).map(ODataValue.decimal)
        case (.double, .number(let text)), (.double, .string(let text)),
            (.single, .number(let text)), (.single, .string(let text)):
            return double(text).map(ODataValue.double)
        case (.string, .string(let text)): return .string(text)
        case (.string, .number(let text)): return .string(text)
        case (.string, .bool(let flag)): return .string(flag ? "true" : "false")
        case (.guid, .string(let text)):
            guard UUID(uuidString: text) != nil else { return nil }
            return .guid(text.lowercased())
        case (.dateTime, .string(let text)):
            guard let instant = ODataInstant(wireDate: text) ?? ODataInstant(iso8601: text) else { return nil }
            return .dateTime(instant)
        case (.dateTimeOffset, .string(let text)):
            guard let instant = ODataInstant(wireDate: text) ?? ODataInstant(iso8601: text) else { return nil }
            return .dateTimeOffset(instant)
        case (.time, .string(let text)), (.timeOfDay, .string(let text)), (.duration, .string(let text)):
            return ODataDuration(parsing: text).map(ODataValue.time)
        case (.date, .string(let text)):
            // v4's `2025-08-30`; some servers send a whole instant at midnight.
            guard var instant = ODataInstant(iso8601: text) else { return nil }
            instant.offsetMinutes = nil
            return .dateTime(instant)
        case (.binary, .string(let text)), (.stream, .string(let text)):
            return Data(base64Encoded: text).map(ODataValue.binary)
        default:
            return nil
        }
    }

    static func integer(_ text: String) -> Int64? {
        if let value = Int64(text) { return value }
        // `12.0` and `1e3` are whole numbers some servers write for integers.
        guard let canonical = DecimalText.canonical(text), !canonical.contains(".") else { return nil }
        return Int64(canonical)
    }

    static func double(_ text: String) -> Double? {
        switch text {
        case "INF", "Infinity": return .infinity
        case "-INF", "-Infinity": return -.infinity
        case "NaN": return .nan
        default:
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 < 0x80 && "+-.eE0123456789".utf8.contains($0) }) else {
                return nil
            }
            return Double(text)
        }
    }

    /// Best-effort typing when the model says nothing: `/Date(…)/` strings become instants,
    /// whole numbers `Int64` (or lossless decimals when too large), other numbers doubles.
    func untypedValue(_ value: Int, depth: Int) -> ODataValue {
        switch tape[value].kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .string:
            let text = tape.string(value)
            if text.hasPrefix("/Date(") || text.hasPrefix("\\/Date("), let instant = ODataInstant(wireDate: text) {
                return instant.offsetMinutes == nil ? .dateTime(instant) : .dateTimeOffset(instant)
            }
            return .string(text)
        case .number:
            let text = tape.string(value)
            if let integer = Int64(text) { return .int(integer) }
            if !text.contains("."), !text.contains("e"), !text.contains("E"), let decimal = DecimalText.canonical(text)
            {
                return .decimal(decimal)
            }
            return .double(Double(text) ?? .nan)
        case .array:
            guard depth < 96 else { return .null }
            var items: [ODataValue] = []
            var item = tape.firstChild(value)
            for _ in 0..<tape[value].count {
                items.append(untypedValue(item, depth: depth + 1))
                item = tape.after(item)
            }
            return .collection(items)
        case .object:
            guard depth < 96 else { return .null }
            var members: [ODataProperty] = []
            var key = tape.firstChild(value)
            for _ in 0..<tape[value].count {
                let member = key + 1
                if !tape.isReservedKey(key), !(version4 && tape.isAnnotationKey(key)) {
                    members.append(ODataProperty(name: tape.string(key), value: untypedValue(member, depth: depth + 1)))
                }
                key = tape.after(member)
            }
            return .complex(members)
        }
    }
}
