extension String {
    /// Whether the text holds a control character (C0, DEL or C1). No name, URL or secret needs
    /// one, and PostgreSQL refuses U+0000 in text columns, so stored text fields refuse them.
    package var containsControlCharacter: Bool {
        unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    package static let controlCharacterAdvice = "remove control characters (such as U+0000 or escape codes); give printable text"
}
