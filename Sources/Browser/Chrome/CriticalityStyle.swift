import ODataCore
import Terminal

/// How a `UI.Criticality` level is drawn (issue 33): in the theme's colour for good, warning or bad, and with a
/// one-cell mark that says the same without colour (monochrome, `NO_COLOR`, a reader who cannot tell the colours
/// apart). A neutral value is drawn as any other.
struct CriticalityStyle: Equatable {
    let style: CellStyle
    let mark: String

    init?(_ level: Criticality.Level) {
        switch level {
        case .neutral: return nil
        case .veryNegative: (style, mark) = (CellStyle([.bold], role: .error), "✗")
        case .negative: (style, mark) = (CellStyle(role: .error), "✗")
        case .critical: (style, mark) = (CellStyle(role: .warning), "!")
        case .positive, .veryPositive: (style, mark) = (CellStyle(role: .success), "✓")
        case .information: (style, mark) = (CellStyle(role: .accent), "i")
        }
    }
}
