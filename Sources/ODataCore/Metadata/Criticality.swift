import Foundation

/// `UI.Criticality` (issue 33): how good or bad a value is, as a Fiori app colours it. Declared on a property (the
/// term) or on a data field of a line item or field group (its `Criticality` record property), either once for all
/// (`EnumMember="UI.CriticalityType/Negative"`) or by a property of the same entity whose value is the level
/// (`Path="StatusCriticality"`: 0…5, as a number or its text).
public enum Criticality: Sendable, Hashable {
    case fixed(Level)
    case path(String)

    /// `UI.CriticalityType`.
    public enum Level: Int, Sendable, Hashable, CaseIterable {
        case veryNegative = -1
        case neutral = 0
        case negative = 1
        case critical = 2
        case positive = 3
        case veryPositive = 4
        case information = 5

        /// An enum member as CSDL spells it: `UI.CriticalityType/Negative`, the full vocabulary name, the bare
        /// name, or its value.
        public init?(member: String) {
            let name = String(
                (member.split(separator: "/").last.map(String.init) ?? member).filter { !$0.isWhitespace })
            if let number = Int(name) {
                self.init(rawValue: number)
                return
            }
            guard let level = Self.allCases.first(where: { "\($0)".caseInsensitiveCompare(name) == .orderedSame })
            else { return nil }
            self = level
        }

        /// The level a property's value names: a number, or a text holding one (v2 services often send
        /// `Edm.Byte` or `Edm.String`); anything else names none.
        public init?(value: ODataValue) {
            switch value {
            case .int(let number): self.init(rawValue: Int(clamping: number))
            case .decimal(let text), .string(let text):
                guard let number = Int(text.trimmingCharacters(in: .whitespaces)) else { return nil }
                self.init(rawValue: number)
            case .double(let number) where number.rounded() == number && abs(number) < 100:
                self.init(rawValue: Int(number))
            default: return nil
            }
        }
    }

    /// The level for an entity whose properties `value` gives (nil: the path names nothing, or no level).
    public func level(_ value: (String) -> ODataValue?) -> Level? {
        switch self {
        case .fixed(let level): level
        case .path(let path): value(path).flatMap(Level.init(value:))
        }
    }
}

extension Criticality {
    /// Read from a `UI.Criticality` annotation or a data field's `Criticality` property value: a `Path` (one
    /// property of the entity itself), an `EnumMember` or an `Int`. Anything else (a path through navigations, an
    /// unknown member) is no criticality.
    init?(annotation node: XMLNode) {
        let text = { (name: String) in
            (node.attribute(name) ?? node.child(named: name)?.text).map { String($0.filter { !$0.isWhitespace }) }
        }
        if let path = text("Path") {
            guard !path.isEmpty, !path.contains("/"), !path.contains("@") else { return nil }
            self = .path(path)
        } else if let level = text("EnumMember").flatMap(Level.init(member:))
            ?? text("Int").flatMap(Level.init(member:))
        {
            self = .fixed(level)
        } else {
            return nil
        }
    }
}
