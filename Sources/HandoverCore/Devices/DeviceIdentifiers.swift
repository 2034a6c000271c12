import Foundation

/// What names a device for people and for the hospital's MDM: its name, its serial number (how
/// Jamf Pro and Intune find it) and, optionally, the MDM's own id for it. Each check answers what
/// is wrong, for people, or nil.
package enum DeviceIdentifiers {
    /// 1 to 100 characters after trimming, no control characters.
    package static func problem(name: String) -> String? {
        if name.containsControlCharacter { return String.controlCharacterAdvice }
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        return (1...100).contains(trimmed.count) ? nil : "give 1 to 100 characters"
    }

    /// Letters, digits, `-`, `_` and `.`, 1 to 64 of them (Apple's are 10 to 12 letters and digits).
    package static func problem(serialNumber: String) -> String? {
        if serialNumber.containsControlCharacter { return "remove control characters; a serial number is letters and digits" }
        let allowed = serialNumber.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
        guard allowed, (1...64).contains(serialNumber.count) else {
            return "'\(serialNumber.prefix(70))' is not a serial number; give 1 to 64 letters, digits, '-', '_' or '.', such as C02XK1ABJG5H"
        }
        return nil
    }

    /// The MDM's id for the device (Jamf Pro's number, Intune's GUID): 1 to 128 printable
    /// characters without spaces.
    package static func problem(mdmDeviceID: String) -> String? {
        if mdmDeviceID.containsControlCharacter { return "remove control characters; give the id as your MDM shows it" }
        guard (1...128).contains(mdmDeviceID.count), !mdmDeviceID.contains(where: \.isWhitespace) else {
            return "give 1 to 128 characters without spaces, as your MDM shows the id (Jamf Pro: 42; Intune: a GUID)"
        }
        return nil
    }

    /// Serial numbers compare without regard to case: stored upper-cased.
    package static func normalized(serialNumber: String) -> String { serialNumber.uppercased() }
}
