import Foundation

extension VerboseJSONDecoder.Context {
    /// A value whose declared type is known; a value of the wrong shape is an error naming the property.
    func typedValue(_ value: JSONValue, type: EdmTypeReference, name: String, depth: Int) throws(ODataError) -> ODataValue {
        if case .null = value { return .null }
        func wrong() -> ODataError {
            malformed("the property \(name) should be \(type) but is \(describe(value))")
        }
        switch type {
        case .primitive(let primitive):
            guard let typed = Self.primitive(value, as: primitive) else { throw wrong() }
            return typed
        case .named(let typeName):
            guard case .object(let object) = value else { throw wrong() }
            let declared = model?.complexTypes[typeName]?.properties ?? []
            var members: [ODataProperty] = []
            for member in object.members where !member.key.hasPrefix("__") {
                if let property = declared.first(where: { $0.name == member.key }) {
                    members.append(ODataProperty(name: member.key, value: try typedValue(member.value, type: property.type, name: name + "/" + member.key, depth: depth + 1)))
                } else {
                    members.append(ODataProperty(name: member.key, value: untypedValue(member.value, depth: depth + 1)))
                }
            }
            return .complex(members)
        case .collection(let element):
            let elements: [JSONValue]
            if case .array(let array) = value {
                elements = array
            } else if case .array(let array)? = value["results"] {
                elements = array
            } else {
                throw wrong()
            }
            var result: [ODataValue] = []
            for item in elements { result.append(try typedValue(item, type: element, name: name, depth: depth + 1)) }
            return .collection(result)
        case .unknown:
            return untypedValue(value, depth: depth)
        }
    }

    func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "the string \"\(text.prefix(40))\(text.count > 40 ? "…" : "")\""
        case .number(let text): "the number \(text.prefix(40))"
        default: value.kindName
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
        case (.time, .string(let text)):
            return ODataDuration(parsing: text).map(ODataValue.time)
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
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 < 0x80 && "+-.eE0123456789".utf8.contains($0) }) else { return nil }
            return Double(text)
        }
    }

    /// Best-effort typing when the model says nothing: `/Date(…)/` strings become instants,
    /// whole numbers `Int64` (or lossless decimals when too large), other numbers doubles.
    func untypedValue(_ value: JSONValue, depth: Int) -> ODataValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .string(let text):
            if text.hasPrefix("/Date(") || text.hasPrefix("\\/Date("), let instant = ODataInstant(wireDate: text) {
                return instant.offsetMinutes == nil ? .dateTime(instant) : .dateTimeOffset(instant)
            }
            return .string(text)
        case .number(let text):
            if let integer = Int64(text) { return .int(integer) }
            if !text.contains("."), !text.contains("e"), !text.contains("E"), let decimal = DecimalText.canonical(text) {
                return .decimal(decimal)
            }
            return .double(Double(text) ?? .nan)
        case .array(let elements):
            guard depth < 96 else { return .null }
            return .collection(elements.map { untypedValue($0, depth: depth + 1) })
        case .object(let object):
            guard depth < 96 else { return .null }
            return .complex(object.members.filter { !$0.key.hasPrefix("__") }.map {
                ODataProperty(name: $0.key, value: untypedValue($0.value, depth: depth + 1))
            })
        }
    }
}
