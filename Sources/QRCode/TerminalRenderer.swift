/// Draws a ``QRCode`` with text characters, two module rows per line, for scanning off a terminal.
enum TerminalRenderer {
    /// Each character is one module wide and two high: "█" (both halves drawn), "▀" (top),
    /// "▄" (bottom) or " " (neither). Which modules are "drawn" depends on the background: on a
    /// dark terminal the light modules (and the quiet zone) are drawn in the light text colour; on a
    /// light terminal the dark modules are drawn.
    static func text(_ code: QRCode, quietZone: Int, background: QRCode.TerminalBackground) -> String {
        precondition(quietZone >= 0, "the quiet zone cannot be negative")
        let side = code.size + 2 * quietZone
        func drawn(_ x: Int, _ y: Int) -> Bool {
            guard y < side else { return false }  // below the picture: the terminal's own background
            let dark = code.isDark(x: x - quietZone, y: y - quietZone)
            return background == .dark ? !dark : dark
        }
        var lines: [String] = []
        for y in stride(from: 0, to: side, by: 2) {
            var line = ""
            for x in 0..<side {
                switch (drawn(x, y), drawn(x, y + 1)) {
                case (true, true): line += "█"
                case (true, false): line += "▀"
                case (false, true): line += "▄"
                case (false, false): line += " "
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}

extension QRCode {
    /// The colour behind the text in the terminal a code is printed to.
    public enum TerminalBackground: Sendable {
        /// Light text on a dark background, the usual terminal: light modules are drawn.
        case dark
        /// Dark text on a light background: dark modules are drawn.
        case light
    }

    /// The code as lines of text that a phone can scan off the screen: each character is one
    /// module wide and two high, drawn with the block characters █ ▀ ▄, inside a light border of
    /// `quietZone` modules. Lines are separated by "\n", with no newline at the end.
    ///
    /// ```swift
    /// print(try QRCode(encoding: "https://example.com").terminalText())
    /// ```
    ///
    /// - Parameter quietZone: the blank modules around the symbol (4 by the standard).
    /// - Parameter background: The terminal's background colour, so that dark modules come out
    ///   dark: `.dark` (the default) draws the light modules with the text colour.
    /// - Precondition: `quietZone` ≥ 0.
    public func terminalText(quietZone: Int = 4, background: TerminalBackground = .dark) -> String {
        TerminalRenderer.text(self, quietZone: quietZone, background: background)
    }
}
