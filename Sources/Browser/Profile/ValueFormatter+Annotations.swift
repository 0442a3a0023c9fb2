import ODataCore

extension ValueFormatter {
    /// How a property is shown where the service relates it to another (see ``fill(_:_:)``): a code with its
    /// readable text (`Common.Text`, `sap:text`, arranged as `UI.TextArrangement` says), an amount with its
    /// currency or a quantity with its unit (`Measures.ISOCurrency`, `Measures.Unit`, `sap:unit`); a decimal alone
    /// with the places of its `Scale`; else `{name}`.
    /// `available` says which other properties there are to show (a text or unit nobody declares is left out).
    public static func template(for property: Property, available: (String) -> Bool) -> String {
        let name = property.name
        if property.enumeration?.isFlags == true { return "{\(name):flags}" }
        if let text = property.textProperty, text != name, available(text) {
            switch property.textArrangement {
            case .textFirst: return "{\(name):text=\(text)}"
            case .textLast: return "{\(name):textlast=\(text)}"
            case .textOnly: return "{\(name):textonly=\(text)}"
            case .textSeparate: break
            }
        }
        switch property.unit {
        case .currency(let path)? where path != name && available(path): return "{\(name):currency=\(path)}"
        case .unit(let path)? where path != name && available(path): return "{\(name):unit=\(path)}"
        case .currencyCode(let code)? where Self.isCode(code): return "{\(name):currency='\(code)'}"
        case .unitCode(let code)? where Self.isCode(code): return "{\(name):unit='\(code)'}"
        default:
            // A decimal of a fixed scale shows that many places, as Fiori shows it (`7,170.800` for Scale 3); a
            // larger scale, or a variable one, shows as sent.
            if property.type == .primitive(.decimal), let scale = property.scale, (0...3).contains(scale) {
                return "{\(name):places\(scale)}"
            }
            return "{\(name)}"
        }
    }

    /// A code that can stand in a template (no braces, quotes or colons from a hostile document).
    static func isCode(_ code: String) -> Bool {
        !code.isEmpty && code.count <= 12 && !code.contains { "{}':=".contains($0) || $0.isNewline }
    }
}
