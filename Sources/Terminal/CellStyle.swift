/// How one cell looks: text attributes plus a semantic colour role.
///
/// Screens say *what* a cell is (``ColorRole``); the driver decides *how* to show it for the
/// terminal's ``ColorCapability`` (colours, or attributes only under `NO_COLOR`).
public struct CellStyle: Hashable, Sendable {
    /// Text attributes.
    public struct Attributes: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let bold = Attributes(rawValue: 1 << 0)
        public static let reverse = Attributes(rawValue: 1 << 1)
        public static let dim = Attributes(rawValue: 1 << 2)
        public static let underline = Attributes(rawValue: 1 << 3)
    }

    /// Bold, reverse, dim, underline.
    public var attributes: Attributes
    /// The semantic colour.
    public var role: ColorRole

    /// Creates a style.
    public init(_ attributes: Attributes = [], role: ColorRole = .normal) {
        self.attributes = attributes
        self.role = role
    }

    /// The terminal's default look.
    public static let plain = CellStyle()
}

/// What a piece of text *is*, so that each driver can pick colours (or attributes) for it.
public enum ColorRole: UInt8, CaseIterable, Hashable, Sendable {
    /// Ordinary text in the terminal's default colours.
    case normal
    /// A screen title or breadcrumb.
    case title
    /// Column headers.
    case header
    /// The highlighted row.
    case selection
    /// The status line.
    case status
    /// Secondary text: placeholders such as `loading…`, hints.
    case muted
    /// Something to draw the eye to (keys in help, counts).
    case accent
    /// Errors.
    case error
    /// Warnings, offline state.
    case warning
    /// Success, online state.
    case success
}
