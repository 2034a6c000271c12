import Foundation

/// A syntactically plausible email address, normalized to lowercase: what this server accepts as
/// a person's login, whether it is typed for an email link or answered by the customer's badge
/// directory (``BadgeLookup``): `local@domain.tld`, at most 254 characters, a local part of at
/// most 64 of letters, digits and `.!#$%&'*+/=?^_`{|}~-` (no leading, trailing or doubled dot),
/// a domain of at least two labels of letters, digits and `-`.
package struct EmailAddress: Sendable, Equatable {
    /// The address, trimmed and lower-cased.
    package let normalized: String

    package init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard trimmed.count <= 254, let at = trimmed.lastIndex(of: "@") else { return nil }
        let local = trimmed[..<at], domain = trimmed[trimmed.index(after: at)...]
        let localAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.!#$%&'*+/=?^_`{|}~-")
        let domainAllowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-")
        guard !local.isEmpty, local.count <= 64, local.unicodeScalars.allSatisfy(localAllowed.contains),
              !local.hasPrefix("."), !local.hasSuffix("."), !local.contains(".."),
              domain.contains("."), domain.unicodeScalars.allSatisfy(domainAllowed.contains),
              domain.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0.count <= 63 && !$0.hasPrefix("-") && !$0.hasSuffix("-") })
        else { return nil }
        normalized = trimmed
    }
}
