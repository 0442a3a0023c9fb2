import Terminal

/// The actions a config file may bind to other keys, by name, with their default keys.
public enum KeyBindings {
    /// Every key action of the command line (`quit`, `sort`, `outbox`…), plus `filter`, `command`, `chart` and
    /// the movement keys (`up`, `down`, `page-up`, `page-down`, `top`, `bottom`, `open`, `back`).
    @MainActor
    public static var defaults: [String: Key] {
        var actions: [String: Key] = ["filter": .char("/"), "command": .char(":"), "chart": .char("c")]
        for command in CommandPalette.commands {
            if let key = command.key { actions[command.name] = key }
        }
        for (name, key) in movement { actions[name] = key }
        return actions
    }

    /// The movement actions and the key each stands for.
    static let movement: [String: Key] = [
        "up": .up, "down": .down, "page-up": .pageUp, "page-down": .pageDown, "top": .home, "bottom": .end,
        "open": .enter, "back": .escape,
    ]

    /// Keys with names, as a config file writes them (`"pagedown"`, `"f5"`, `"space"`).
    static let named: [String: Key] = [
        "up": .up, "down": .down, "left": .left, "right": .right, "pageup": .pageUp, "page-up": .pageUp,
        "pagedown": .pageDown, "page-down": .pageDown, "home": .home, "end": .end, "enter": .enter,
        "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "backtab": .backTab, "space": .char(" "),
        "backspace": .backspace, "delete": .delete,
    ]

    /// A key as a config file writes it: one printable character (`x`, `Q`, `?`), `ctrl-LETTER`, `f1`…`f12`, or
    /// a named key (`down`, `pagedown`, `enter`, `esc`, `space`, `tab`…).
    public static func key(named text: String) -> Key? {
        let lowered = text.lowercased()
        if lowered.hasPrefix("ctrl-"), lowered.count == 6, let letter = lowered.last, letter.isLetter {
            return .ctrl(letter)
        }
        if text.count > 1, let key = named[lowered] { return key }
        if lowered.hasPrefix("f"), let number = Int(lowered.dropFirst()), (1...12).contains(number) {
            return .function(number)
        }
        guard text.count == 1, let character = text.first,
            character.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value != 0x7F })
        else { return nil }
        return .char(character)
    }
}

/// What a config file's `[keys]` does to the keys pressed: some stand for an action's default key, some do nothing.
public struct Keymap: Sendable, Equatable {
    /// Bound key → the default key of its action (`x` → `q` for `quit = "x"`).
    public var bound: [Key: Key]
    /// Default keys unbound (`unbind = ["q"]`): they do nothing unless bound again.
    public var unbound: Set<Key>

    public init(bound: [Key: Key] = [:], unbound: Set<Key> = []) {
        self.bound = bound
        self.unbound = unbound
    }

    /// The key the browser acts on for a key pressed; nil when it does nothing.
    public func translate(_ key: Key) -> Key? {
        if let target = bound[key] { return target }
        return unbound.contains(key) ? nil : key
    }

    public var isEmpty: Bool { bound.isEmpty && unbound.isEmpty }
}

extension BrowserApp {
    /// Keys a config file bound or unbound. Not applied while text is typed (a filter, the command line, a form).
    public func bind(_ keymap: Keymap) {
        self.keymap = keymap
    }

    /// Whether the keys go into text now.
    var isTypingText: Bool {
        palette.isOpen || stack.top.takesText
    }
}
