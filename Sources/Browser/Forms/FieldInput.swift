import Foundation
import ODataCore

/// What a form field accepts, from the property's `$metadata` facets, and how typed text becomes a value.
///
/// Every Edm type the decoder knows has a typed input: text is checked and turned into an ``ODataValue``,
/// or refused with a sentence that says what is expected — before anything is queued.
struct FieldInput: Hashable {
    var name: String
    /// What its sentences call it: the service's label (`Common.Label`, `sap:label`), else its name.
    var shownName: String
    var type: EdmPrimitiveType
    var isNullable: Bool
    var maxLength: Int?
    var precision: Int?
    var scale: Int?
    /// The enum type whose members it takes (issue 37).
    var enumeration: EnumType?

    init(_ property: Property) {
        name = property.name
        shownName =
            property.label.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : String($0.prefix(40)) } ?? property.name
        if case .primitive(let primitive) = property.type { type = primitive } else { type = .string }
        isNullable = property.isNullable && !property.isMandatory
        maxLength = property.maxLength
        precision = property.precision
        scale = property.scale
        enumeration = property.enumeration
    }

    init(
        name: String, type: EdmPrimitiveType, isNullable: Bool = true, maxLength: Int? = nil, precision: Int? = nil,
        scale: Int? = nil
    ) {
        self.name = name
        self.shownName = name
        self.type = type
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.precision = precision
        self.scale = scale
    }

    /// Whether the type can be typed at all (binary and streams cannot).
    var isEditable: Bool { type != .binary && type != .stream }

    /// The value as text to edit: what ``parse(_:)`` reads back to the same value.
    static func text(of value: ODataValue?) -> String {
        switch value {
        case nil, .null?: return ""
        case .bool(let flag)?: return flag ? "true" : "false"
        case .int(let number)?: return String(number)
        case .decimal(let text)?: return text
        case .double(let number)?:
            return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .string(let text)?: return text
        case .guid(let text)?: return text
        case .dateTime(let instant)?: return dateText(instant, offset: false)
        case .dateTimeOffset(let instant)?: return dateText(instant, offset: true)
        case .time(let duration)?:
            let seconds = duration.milliseconds / 1000
            return String(format: "%02d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        case .binary?, .complex?, .collection?: return ""
        }
    }

    /// `2024-01-31`, or `2024-01-31 14:05:09` when there is a time of day (`+01:00` with an offset).
    static func dateText(_ instant: ODataInstant, offset: Bool) -> String {
        let iso = instant.iso8601(withOffset: offset)  // 2024-01-31T14:05:09[.123][+01:00]
        var text = iso.replacingOccurrences(of: "T", with: " ")
        if !offset, text.hasSuffix(" 00:00:00") { text = String(text.dropLast(9)) }
        return text
    }

    /// The value `text` means, or a sentence saying why it is refused.
    func parse(_ raw: String) -> Result<ODataValue, FieldError> {
        let text = type == .string ? raw : raw.trimmingCharacters(in: .whitespaces)
        if text.isEmpty && type != .string {
            return isNullable ? .success(.null) : .failure(FieldError("\(shownName) is required."))
        }
        if let enumeration, type == .string {
            let typed = text.trimmingCharacters(in: .whitespaces)
            if typed.isEmpty { return isNullable ? .success(.null) : .failure(FieldError("\(shownName) is required.")) }
            guard let members = enumeration.members(in: typed) else {
                let names = enumeration.members.prefix(8).map(\.name).joined(separator: ", ")
                let more = enumeration.members.count > 8 ? ", …" : ""
                let how = enumeration.isFlags ? "any of (by commas)" : "one of"
                return .failure(FieldError("\(shownName) takes \(how) \(names)\(more)."))
            }
            return .success(.string(members.joined(separator: ",")))
        }
        switch type {
        case .string:
            if let maxLength, text.count > maxLength {
                return .failure(
                    FieldError("\(shownName) takes at most \(maxLength) characters (this has \(text.count))."))
            }
            return .success(.string(text))
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "y", "1": return .success(.bool(true))
            case "false", "no", "n", "0": return .success(.bool(false))
            default: return .failure(FieldError("\(shownName) is true or false."))
            }
        case .byte, .sByte, .int16, .int32, .int64:
            let range = Self.range(of: type)
            guard let number = Int64(text), range.contains(number) else {
                return .failure(
                    FieldError("\(shownName) is a whole number from \(range.lowerBound) to \(range.upperBound)."))
            }
            return .success(.int(number))
        case .decimal:
            guard text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+") }),
                let canonical = DecimalText.canonical(text)
            else { return .failure(FieldError("\(shownName) is a number such as 12.50.")) }
            let digits = canonical.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
            let whole = digits.first.map { $0 == "0" ? 0 : $0.count } ?? 0
            let fraction = digits.count > 1 ? digits[1].count : 0
            if let scale, fraction > scale {
                return .failure(FieldError("\(shownName) takes at most \(scale) digits after the point."))
            }
            if let precision, whole + max(fraction, scale ?? 0) > precision {
                let most = precision - (scale ?? 0)
                return .failure(FieldError("\(shownName) takes at most \(most) digits before the point."))
            }
            return .success(.decimal(canonical))
        case .double, .single:
            guard let number = Double(text), number.isFinite else {
                return .failure(FieldError("\(shownName) is a number such as 3.75."))
            }
            return .success(.double(number))
        case .guid:
            let hex = text.lowercased()
            let groups = hex.split(separator: "-", omittingEmptySubsequences: false).map(\.count)
            guard groups == [8, 4, 4, 4, 12], hex.allSatisfy({ $0 == "-" || $0.isHexDigit }) else {
                return .failure(FieldError("\(shownName) is a GUID such as 0c4b5a1e-8f4e-4c84-9a0d-6c5d2b1f9e11."))
            }
            return .success(.guid(hex))
        case .dateTime, .dateTimeOffset:
            return parseDate(text)
        case .date:
            guard case .success(.dateTime(let instant)) = parseDate(text),
                instant.millisecondsSince1970 % 86_400_000 == 0
            else { return .failure(FieldError("\(shownName) is a date such as 2024-01-31.")) }
            return .success(.dateTime(instant))
        case .duration where text.uppercased().hasPrefix("P"):
            guard let duration = ODataDuration(parsing: text.uppercased()) else {
                return .failure(FieldError("\(shownName) is a length of time such as P1DT2H30M or 26:30:00."))
            }
            return .success(.time(duration))
        case .time, .timeOfDay, .duration:
            let parts = text.split(separator: ":").map { Int($0) }
            guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }), let hours = parts[0],
                let minutes = parts[1],
                (0..<24).contains(hours), (0..<60).contains(minutes),
                (0..<60).contains(parts.count == 3 ? parts[2]! : 0)
            else { return .failure(FieldError("\(shownName) is a time of day such as 14:30 or 14:30:15.")) }
            let seconds = Int64(hours * 3600 + minutes * 60 + (parts.count == 3 ? parts[2]! : 0))
            return .success(.time(ODataDuration(milliseconds: seconds * 1000)))
        case .binary, .stream:
            return .failure(FieldError("\(shownName) cannot be typed here."))
        }
    }

    /// `2024-01-31`, `2024-01-31 14:05`, `2024-01-31 14:05:09` or ISO 8601; with an offset for DateTimeOffset
    /// (none given reads as UTC).
    func parseDate(_ text: String) -> Result<ODataValue, FieldError> {
        var iso = text.replacingOccurrences(of: " ", with: "T", options: [], range: text.range(of: " "))
        if iso.count == 10 { iso += "T00:00:00" }
        if iso.count == 16 {
            iso += ":00"
        } else if iso.count > 16, iso[iso.index(iso.startIndex, offsetBy: 16)] != ":" {
            iso.insert(contentsOf: ":00", at: iso.index(iso.startIndex, offsetBy: 16))
        }
        guard var instant = ODataInstant(iso8601: iso.replacingOccurrences(of: " ", with: "")),
            Self.isRealDate(iso)
        else {
            return .failure(FieldError("\(shownName) is a date such as 2024-01-31 or 2024-01-31 14:30."))
        }
        if type == .dateTime || type == .date {
            instant.offsetMinutes = nil
            return .success(.dateTime(instant))
        }
        if instant.offsetMinutes == nil { instant.offsetMinutes = 0 }
        return .success(.dateTimeOffset(instant))
    }

    /// Whether the day exists (no 2023-02-30), which ISO parsing alone would roll over.
    static func isRealDate(_ iso: String) -> Bool {
        let parts = iso.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return false }
        var components = DateComponents(year: parts[0], month: parts[1])
        components.calendar = Calendar(identifier: .gregorian)
        guard let month = components.date, let days = components.calendar?.range(of: .day, in: .month, for: month)
        else {
            return false
        }
        return days.contains(parts[2])
    }

    static func range(of type: EdmPrimitiveType) -> ClosedRange<Int64> {
        switch type {
        case .byte: 0...255
        case .sByte: -128...127
        case .int16: -32_768...32_767
        case .int32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }
}

/// Why typed text was refused, as a sentence shown next to the field.
struct FieldError: Error, Hashable {
    var sentence: String
    init(_ sentence: String) { self.sentence = sentence }
}
