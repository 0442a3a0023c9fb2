/// Why the terminal could not be opened.
public struct TerminalError: Error, CustomStringConvertible, Sendable {
    /// A sentence a person can act on.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
