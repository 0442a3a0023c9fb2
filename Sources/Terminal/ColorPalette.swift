import CNcurses

/// Maps each ``ColorRole`` to an ncurses colour pair and attributes for one ``ColorCapability``.
///
/// Pair number = role raw value (``ColorRole/normal`` uses pair 0, the terminal's defaults).
/// Under ``ColorCapability/monochrome`` roles become attributes (selection and status reverse,
/// titles bold, muted dim) so a `NO_COLOR` terminal still shows what is selected.
struct ColorPalette {
    let capability: ColorCapability

    /// (foreground, background) for a role; -1 is the terminal's default.
    func colors(for role: ColorRole) -> (Int16, Int16) {
        switch capability {
        case .monochrome:
            return (-1, -1)
        case .palette256:
            switch role {
            case .normal: return (-1, -1)
            case .title: return (75, -1)
            case .header: return (110, -1)
            case .selection: return (255, 24)
            case .status: return (252, 236)
            case .muted: return (245, -1)
            case .accent: return (214, -1)
            case .error: return (203, -1)
            case .warning: return (220, -1)
            case .success: return (114, -1)
            }
        case .ansi16:
            switch role {
            case .normal: return (-1, -1)
            case .title: return (Int16(COLOR_CYAN), -1)
            case .header: return (Int16(COLOR_CYAN), -1)
            case .selection: return (Int16(COLOR_WHITE), Int16(COLOR_BLUE))
            case .status: return (Int16(COLOR_BLACK), Int16(COLOR_WHITE))
            case .muted: return (cd_colors() >= 16 ? 8 : Int16(COLOR_WHITE), -1)
            case .accent: return (Int16(COLOR_YELLOW), -1)
            case .error: return (Int16(COLOR_RED), -1)
            case .warning: return (Int16(COLOR_YELLOW), -1)
            case .success: return (Int16(COLOR_GREEN), -1)
            }
        }
    }

    /// Defines the colour pairs (nothing under monochrome).
    func install() {
        guard capability != .monochrome else { return }
        for role in ColorRole.allCases where role != .normal {
            let (fg, bg) = colors(for: role)
            init_pair(Int16(role.rawValue), fg, bg)
        }
    }

    /// The ncurses attributes and pair for a style.
    func attributes(for style: CellStyle) -> (attr_t, Int16) {
        var attrs = cd_a_normal()
        if style.attributes.contains(.bold) { attrs |= cd_a_bold() }
        if style.attributes.contains(.reverse) { attrs |= cd_a_reverse() }
        if style.attributes.contains(.dim) { attrs |= cd_a_dim() }
        if style.attributes.contains(.underline) { attrs |= cd_a_underline() }
        guard capability == .monochrome else { return (attrs, Int16(style.role.rawValue)) }
        switch style.role {
        case .selection, .status: attrs |= cd_a_reverse()
        case .title, .accent, .error, .warning: attrs |= cd_a_bold()
        case .header: attrs |= cd_a_bold() | cd_a_underline()
        case .muted: attrs |= cd_a_dim()
        case .normal, .success: break
        }
        return (attrs, 0)
    }
}
