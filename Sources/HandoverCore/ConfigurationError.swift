import Foundation

/// A setting that cannot be used, with what would be accepted.
///
/// A URL quoted in the problem keeps its user but not its password (`https://lookup:***@host`,
/// ``redactingPasswords(_:)``): configuration errors are printed, logged and pasted into tickets.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var setting: String
    public var problem: String
    public var accepted: String
    public var description: String { "\(setting): \(problem). Accepted: \(accepted)." }

    public init(setting: String, problem: String, accepted: String) {
        self.setting = setting
        self.problem = Self.redactingPasswords(problem)
        self.accepted = accepted
    }

    /// `text` with the password of every URL in it written `***`: `postgres://handover:s3cret@db/h`
    /// becomes `postgres://handover:***@db/h`. A URL's authority runs from `://` to the first `/`,
    /// `?`, `#`, white space or quote; its user information is what comes before its last `@`.
    public static func redactingPasswords(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var result = ""
        var rest = Substring(text)
        while let scheme = rest.range(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let end = rest.firstIndex { "/?#'\"<>".contains($0) || $0.isWhitespace } ?? rest.endIndex
            let authority = rest[..<end]
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":"),
               authority.index(after: colon) < at {
                result += authority[...colon] + "***" + authority[at...]
            } else {
                result += authority
            }
            rest = rest[end...]
        }
        return result + rest
    }
}
