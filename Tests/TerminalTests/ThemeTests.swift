import Foundation
import Testing

@testable import Terminal

/// Themes (issue 15): every theme readable on light and dark backgrounds, monochrome as NO_COLOR is.
@Suite struct ThemeTests {
    /// The xterm 256-colour palette's RGB.
    static func rgb(_ index: Int16) -> (Double, Double, Double) {
        let base: [(Double, Double, Double)] = [
            (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
            (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
            (255, 0, 255), (0, 255, 255), (255, 255, 255),
        ]
        let index = Int(index)
        if index < 16 { return base[index] }
        if index < 232 {
            let cube = index - 16
            func level(_ value: Int) -> Double { value == 0 ? 0 : Double(55 + 40 * value) }
            return (level(cube / 36), level(cube / 6 % 6), level(cube % 6))
        }
        let grey = Double(8 + 10 * (index - 232))
        return (grey, grey, grey)
    }

    /// WCAG relative luminance and contrast ratio.
    static func contrast(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        func luminance(_ c: (Double, Double, Double)) -> Double {
            func channel(_ v: Double) -> Double {
                let s = v / 255
                return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channel(c.0) + 0.7152 * channel(c.1) + 0.0722 * channel(c.2)
        }
        let (x, y) = (luminance(a), luminance(b))
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    @Test(arguments: [Theme.dark, .light, .highContrast])
    func every_role_reads_on_white_and_on_black(theme: Theme) {
        let palette = ColorPalette(capability: .palette256, theme: theme)
        for role in ColorRole.allCases where role != .normal {
            let (foreground, background) = palette.colors(for: role)
            if background < 0 {
                let onWhite = Self.contrast(Self.rgb(foreground), (255, 255, 255))
                let onBlack = Self.contrast(Self.rgb(foreground), (0, 0, 0))
                #expect(onWhite >= 3 && onBlack >= 3, "\(theme) \(role): \(onWhite) on white, \(onBlack) on black")
            } else {
                let own = Self.contrast(Self.rgb(foreground), Self.rgb(background))
                #expect(own >= 4.5, "\(theme) \(role): \(own) on its own background")
            }
        }
    }

    @Test func the_themes_differ_and_monochrome_uses_attributes_only() {
        let dark = ColorPalette(capability: .palette256, theme: .dark)
        let light = ColorPalette(capability: .palette256, theme: .light)
        let contrast = ColorPalette(capability: .palette256, theme: .highContrast)
        #expect(dark.colors(for: .selection) != light.colors(for: .selection))
        #expect(contrast.colors(for: .selection) == (16, 226))  // black on yellow
        let mono = ColorPalette(capability: .palette256, theme: .monochrome)
        #expect(mono.capability == .monochrome)
        #expect(ColorRole.allCases.allSatisfy { mono.colors(for: $0) == (-1, -1) })
        #expect(mono.attributes(for: CellStyle(role: .selection)).1 == 0)
        // NO_COLOR (a monochrome terminal) stays monochrome whatever the theme
        #expect(ColorPalette(capability: .monochrome, theme: .highContrast).capability == .monochrome)
    }
}

/// Direct colour (issue 15): a 24-bit terminal is sent the theme's colours as xterm shows them, not palette numbers.
@Suite struct DirectColorTests {
    @Test func palette_numbers_become_xterms_red_green_and_blue() {
        for index in Int16(16)...255 {
            let (r, g, b) = ThemeTests.rgb(index)
            #expect(ColorPalette.rgb(ofPaletteColor: index) == Int32(r) << 16 | Int32(g) << 8 | Int32(b), "\(index)")
        }
        // The terminal's own ANSI colours and its defaults are left to it
        #expect(ColorPalette.rgb(ofPaletteColor: -1) == -1 && ColorPalette.rgb(ofPaletteColor: 4) == 4)
        let direct = ColorPalette(capability: .directColor, theme: .light)
        #expect(direct.installedColors(for: .title) == (0x005F_AF, -1))
        #expect(ColorPalette(capability: .directColor, theme: .monochrome).capability == .monochrome)
    }
}
