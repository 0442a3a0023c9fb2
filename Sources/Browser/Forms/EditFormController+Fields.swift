import EntityCache
import ODataCore
import ScreenSeam
import Terminal

/// The fields of a new entity's form, and how a field is labelled.
extension EditFormController {
    /// The fields of a new entity of `type`: every property the service lets a client set; keys may be left empty
    /// for the service to give.
    static func newFields(of type: EntityType, in model: ServiceModel, columns: [DisplayProfile.Column]) -> [Field] {
        let keys = Set(model.keyProperties(of: type))
        return model.properties(of: type).map { property in
            var input = FieldInput(property)
            var readOnly: String?
            if property.isConcurrencyToken || !property.isCreatable {
                readOnly = "set by the service"
            } else if case .primitive = property.type, input.isEditable {
                readOnly = nil
            } else {
                readOnly = "cannot be typed here"
            }
            // A key left empty is the service's to give.
            if keys.contains(property.name) { input.isNullable = true }
            return Field(
                input: input, label: Self.label(of: property, columns: columns), original: nil, text: "", caret: 0,
                readOnly: readOnly, note: keys.contains(property.name) ? "key: empty lets the service choose" : nil)
        }
    }

    /// The longest text a field edits, in bytes; a longer value is shown, cut, and read-only.
    static let longestEditable = 16 << 10

    /// The profile's column title for a column showing just this property, else `sap:label`, else the name.
    static func label(of property: Property, columns: [DisplayProfile.Column]) -> String {
        let shown = columns.first { $0.value == "{\(property.name)}" || $0.value.hasPrefix("{\(property.name):") }
        return shown?.title ?? property.label ?? property.name
    }

    /// Whether anything was typed.
    var isModified: Bool { fields.contains { $0.text != FieldInput.text(of: $0.original) } }
}
