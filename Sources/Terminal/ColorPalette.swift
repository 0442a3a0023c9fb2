import CNcurses

/// Maps each ``ColorRole`` to an ncurses colour pair and attributes for one ``ColorCapability`` and ``Theme``.
///
/// Every theme reads on light and dark backgrounds alike: a role drawn on the terminal's own background has a
/// contrast of at least 3:1 against both white and black (WCAG's figure for large text, and what a one-colour
/// role beside normal text needs), and a role with a background of its own at least 4.5:1 against it (tested,
/// for the 256-colour palette).
///
/// Pair number = role raw value (``ColorRole/normal`` uses pair 0, the terminal's defaults).
/// Under ``ColorCapability/monochrome`` roles become attributes (selection and status reverse,
/// titles bold, muted dim) so a `NO_COLOR` terminal still shows what is selected.
struct ColorPalette {
    /// What the terminal can show, narrowed to monochrome by the monochrome theme.
    let capability: ColorCapability
    let theme: Theme

    init(capability: ColorCapability, theme: Theme = .dark) {
        self.capability = theme == .monochrome ? .monochrome : capability
        self.theme = theme
    }

    /// (foreground, background) for a role as ncurses takes them: palette numbers, or under
    /// ``ColorCapability/directColor`` the 256-colour theme's colours as 0xRRGGBB; -1 is the terminal's default.
    func installedColors(for role: ColorRole) -> (Int32, Int32) {
        guard capability == .directColor else {
            let (fg, bg) = colors(for: role)
            return (Int32(fg), Int32(bg))
        }
        let (fg, bg) = colors(for: role)
        return (Self.rgb(ofPaletteColor: fg), Self.rgb(ofPaletteColor: bg))
    }

    /// The red, green and blue (0xRRGGBB) xterm gives a 256-colour palette number; -1 stays the default.
    /// Numbers below 16 are the terminal's own ANSI colours and are sent as they are (a direct-colour
    /// terminfo entry keeps 0–7 as ANSI colours).
    static func rgb(ofPaletteColor color: Int16) -> Int32 {
        guard color >= 16 else { return Int32(color) }
        if color >= 232 {
            let level = Int32(8 + 10 * (Int(color) - 232))
            return level << 16 | level << 8 | level
        }
        let levels: [Int32] = [0, 95, 135, 175, 215, 255]
        let index = Int(color) - 16
        return levels[index / 36] << 16 | levels[index / 6 % 6] << 8 | levels[index % 6]
    }

    /// (foreground, background) for a role in the palette; -1 is the terminal's default.
    func colors(for role: ColorRole) -> (Int16, Int16) {
        switch (theme, capability) {
        case (_, .monochrome), (.monochrome, _):
            return (-1, -1)
        case (_, .directColor):
            // The 256-colour theme, sent as red, green and blue by ``installedColors(for:)``.
            return ColorPalette(capability: .palette256, theme: theme).colors(for: role)
        case (.light, .palette256):
            switch role {
            case .normal: return (-1, -1)
            case .title: return (25, -1)
            case .header: return (25, -1)
            case .selection: return (16, 153)
            case .status: return (16, 252)
            case .muted: return (242, -1)
            case .accent: return (130, -1)
            case .error: return (160, -1)
            case .warning: return (130, -1)
            case .success: return (28, -1)
            }
        case (.highContrast, .palette256):
            switch role {
            case .normal: return (-1, -1)
            case .title, .header: return (33, -1)
            case .selection: return (16, 226)
            case .status: return (231, 16)
            case .muted: return (244, -1)
            case .accent: return (202, -1)
            case .error: return (196, -1)
            case .warning: return (202, -1)
            case .success: return (28, -1)
            }
        case (.light, .ansi16):
            switch role {
            case .normal, .muted: return (-1, -1)
            case .title, .header: return (Int16(COLOR_BLUE), -1)
            case .selection: return (Int16(COLOR_BLACK), Int16(COLOR_CYAN))
            case .status: return (Int16(COLOR_WHITE), Int16(COLOR_BLACK))
            case .accent, .warning: return (Int16(COLOR_MAGENTA), -1)
            case .error: return (Int16(COLOR_RED), -1)
            case .success: return (Int16(COLOR_GREEN), -1)
            }
        case (.highContrast, .ansi16):
            switch role {
            case .normal, .muted: return (-1, -1)
            case .title, .header: return (Int16(COLOR_BLUE), -1)
            case .selection: return (Int16(COLOR_BLACK), Int16(COLOR_YELLOW))
            case .status: return (Int16(COLOR_WHITE), Int16(COLOR_BLACK))
            case .accent, .warning: return (Int16(COLOR_MAGENTA), -1)
            case .error: return (Int16(COLOR_RED), -1)
            case .success: return (Int16(COLOR_GREEN), -1)
            }
        case (.dark, .palette256):
            switch role {
            case .normal: return (-1, -1)
            case .title: return (68, -1)
            case .header: return (67, -1)
            case .selection: return (255, 24)
            case .status: return (252, 236)
            case .muted: return (245, -1)
            case .accent: return (136, -1)
            case .error: return (167, -1)
            case .warning: return (166, -1)
            case .success: return (29, -1)
            }
        case (.dark, .ansi16):
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
            let (fg, bg) = installedColors(for: role)
            init_extended_pair(Int32(role.rawValue), fg, bg)
        }
    }

    /// The ncurses attributes and pair for a style.
    func attributes(for style: CellStyle) -> (attr_t, Int16) {
        var attrs = cd_a_normal()
        if style.attributes.contains(.bold) { attrs |= cd_a_bold() }
        if style.attributes.contains(.reverse) { attrs |= cd_a_reverse() }
        if style.attributes.contains(.dim) { attrs |= cd_a_dim() }
        if style.attributes.contains(.underline) { attrs |= cd_a_underline() }
        // High contrast keeps the roles' weight even with colours: titles, selection and errors bold.
        if theme == .highContrast, [.title, .selection, .error, .header].contains(style.role) { attrs |= cd_a_bold() }
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
