import Terminal

/// The actions a config file may bind to other keys, by name, with their default keys.
public enum KeyBindings {
    /// Every key action of the command line (`quit`, `sort`, `outbox`…), plus `filter`, `command` and `chart`.
    @MainActor
    public static var defaults: [String: Key] {
        var actions: [String: Key] = ["filter": .char("/"), "command": .char(":"), "chart": .char("c")]
        for command in CommandPalette.commands {
            if let key = command.key { actions[command.name] = key }
        }
        return actions
    }

    /// A key as a config file writes it: one printable character (`x`, `Q`, `?`) or `ctrl-LETTER`.
    public static func key(named text: String) -> Key? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("ctrl-"), lowered.count == 6, let letter = lowered.last, letter.isLetter {
            return .ctrl(letter)
        }
        guard text.count == 1, let character = text.first,
            character.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        return .char(character)
    }
}

extension BrowserApp {
    /// Keys a config file bound: each stands for its action's default key (`x` → `q` for `quit = "x"`). Not
    /// applied while text is typed (a filter, the command line, a form).
    public func bind(_ keymap: [Key: Key]) {
        self.keymap = keymap
    }

    /// Whether the keys go into text now.
    var isTypingText: Bool {
        palette.isOpen || stack.top.takesText
    }
}
