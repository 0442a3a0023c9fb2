import ODataCore

/// The fields of a write whose value the service's answer gives otherwise than it was typed: a service that
/// rounds, trims, or (one did) stores every `/Date(ms)/` as 1970-01-01. Said once, naming the field and both values,
/// so that a change the service did not keep as made is not taken for one it did.
enum ChangedByService {
    struct Difference: Equatable {
        var name: String
        var typed: ODataValue
        var stored: ODataValue
    }

    /// The fields of `typed` that `answer` holds with another value (a field the answer leaves out is not one).
    static func differences(typed: [ODataProperty], answer: [ODataProperty]) -> [Difference] {
        typed.compactMap { field in
            guard let stored = answer.first(where: { $0.name == field.name })?.value,
                !stored.isSameValue(as: field.value)
            else { return nil }
            return Difference(name: field.name, typed: field.value, stored: stored)
        }
    }

    /// `Car(10): the service stored manufactureDate as 1970-01-01T00:00:00Z where 2024-05-01T00:00:00Z was typed.`
    static func sentence(_ differences: [Difference], of entity: EntityKey) -> String? {
        guard !differences.isEmpty else { return nil }
        let parts = differences.map { difference in
            "\(difference.name) as “\(CSV.text(difference.stored))” where “\(CSV.text(difference.typed))” was typed"
        }
        return "\(entity.canonical): the service stored " + parts.joined(separator: ", and ") + "."
    }
}
