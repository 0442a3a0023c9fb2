import Foundation

/// A v4 `EnumType` (issue 37): its members by name and value, and whether it holds flags (several members at once,
/// `Read,Write`). Values of such a property travel as member names; a filter writes one as `NS.Type'Member'`.
public struct EnumType: Sendable, Hashable {
    public var qualifiedName: String
    public var members: [Member]
    public var isFlags: Bool

    public struct Member: Sendable, Hashable {
        public var name: String
        public var value: Int64

        public init(name: String, value: Int64) {
            self.name = name
            self.value = value
        }
    }

    public init(qualifiedName: String, members: [Member], isFlags: Bool = false) {
        self.qualifiedName = qualifiedName
        self.members = members
        self.isFlags = isFlags
    }

    /// The most members a type is read with (a document that declares more is cut, not obeyed).
    static let maxMembers = 512

    /// The member names `text` holds, spelled as declared (matched without regard to case), in the type's order:
    /// one name, or for flags several separated by commas; a member's value as a number is taken too. Nil when
    /// any part names no member, or when several are given to a type that is not flags.
    public func members(in text: String) -> [String]? {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty, isFlags || parts.count == 1 else { return nil }
        var named: [Member] = []
        // (flags as one number: the members whose bits it holds, all of its bits accounted for)
        if isFlags, parts.count == 1, let number = Int64(parts[0]) {
            let held = members.filter { $0.value != 0 && number & $0.value == $0.value }
            let bits = held.reduce(Int64(0)) { $0 | $1.value }
            if bits == number, !held.isEmpty || number == 0 {
                return number == 0 ? members.filter { $0.value == 0 }.map(\.name) : held.map(\.name)
            }
            return nil
        }
        for part in parts {
            guard
                let member = members.first(where: { $0.name.caseInsensitiveCompare(part) == .orderedSame })
                    ?? Int64(part).flatMap({ value in members.first { $0.value == value } })
            else { return nil }
            if !named.contains(member) { named.append(member) }
        }
        return members.filter { named.contains($0) }.map(\.name)
    }

    /// A member's `$filter` literal: `NS.Type'Member'`.
    public func literal(_ member: String) -> String {
        qualifiedName + ODataLiteral.quote(member)
    }
}

extension EnumType {
    /// Read from an `<EnumType Name="…" IsFlags="…"><Member Name="…" Value="…"/>…`: members without a value count
    /// on from the one before (from 0), as CSDL says.
    init(node: XMLNode, namespace: String) {
        var members: [Member] = []
        var next: Int64 = 0
        for member in node.children(named: "Member").prefix(Self.maxMembers) {
            guard let name = member.attribute("Name"), !name.isEmpty else { continue }
            let value = member.attribute("Value").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? next
            members.append(Member(name: name, value: value))
            next = value &+ 1
        }
        self.init(
            qualifiedName: namespace + "." + (node.attribute("Name") ?? ""), members: members,
            isFlags: node.attribute("IsFlags") == "true")
    }
}
