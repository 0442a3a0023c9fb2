import ODataCore

/// In tests, an entity key may be written as its canonical text: `"Person(1)"`, `"Car(\(id))"`.
/// A literal that is not a canonical key stops the test at once, naming it.
extension EntityKey: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    public init(stringLiteral text: String) {
        guard let key = EntityKey(canonical: text) else { preconditionFailure("not a canonical entity key: \(text)") }
        self = key
    }

    public init(stringInterpolation: DefaultStringInterpolation) {
        self.init(stringLiteral: String(stringInterpolation: stringInterpolation))
    }
}
