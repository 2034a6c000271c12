/// Why a link was refused: which parameter, what was wrong with it, and what would be accepted.
///
/// Every parser and policy in `LinkCallbacks` throws this one type, so an app can log it, show it
/// to a developer, or switch over ``Problem`` to decide what to do.
///
/// ```swift
/// do {
///     let link = try CallbackPolicy.default.evaluate(url.absoluteString)
/// } catch {
///     print(error)   // "ulc-success: the scheme is javascript. Accepted: https."
/// }
/// ```
public struct LinkError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem, for code that reacts to it.
    public enum Problem: String, Sendable, CaseIterable {
        /// The text is not a URL of the form RFC 3986 describes.
        case malformedURL = "malformed_url"
        /// A character that a URL may not carry unencoded (a space, a quote, non-ASCII text…).
        case invalidCharacter = "invalid_character"
        /// A raw control character (U+0000–U+001F, U+007F–U+009F).
        case controlCharacter = "control_character"
        /// A backslash, which browsers and URL libraries read differently.
        case backslash
        /// `%0D`, `%0A` or `%00`: a line break or NUL hidden in percent-encoding.
        case encodedControlCharacter = "encoded_control_character"
        /// A `%` that is not followed by two hexadecimal digits.
        case invalidPercentEncoding = "invalid_percent_encoding"
        /// A required parameter is absent.
        case missingParameter = "missing_parameter"
        /// A parameter that must appear once appears more than once.
        case duplicateParameter = "duplicate_parameter"
        /// A parameter has a value of the wrong form.
        case invalidValue = "invalid_value"
        /// The URL does not have the shape of any link kind this module reads.
        case unrecognizedLink = "unrecognized_link"
        /// The scheme is not allowed here.
        case disallowedScheme = "disallowed_scheme"
        /// The URL carries a user name or password (`https://good@evil`).
        case userInfo = "user_info"
        /// The URL names a port; universal links cannot carry one.
        case explicitPort = "explicit_port"
        /// The host is empty.
        case emptyHost = "empty_host"
        /// The host is an IPv4 or IPv6 address.
        case ipAddressHost = "ip_address_host"
        /// The host is not a valid DNS name in its ASCII (IDNA) form.
        case invalidHost = "invalid_host"
        /// The host is not on the policy's allowlist.
        case hostNotAllowed = "host_not_allowed"
        /// A callback is itself a ULC, which would bounce links between apps forever.
        case callbackLoop = "callback_loop"
        /// The link is longer than the policy allows.
        case tooLong = "too_long"
        /// Base64url text that is padded, uses the wrong alphabet or has stray bits.
        case invalidBase64URL = "invalid_base64url"
    }

    /// The parameter or part at fault: `ulc-success`, `x-error`, `link`, `action`, `allow-host`…
    public var parameter: String
    /// The kind of problem.
    public var problem: Problem
    /// What was wrong, as a sentence fragment: "the scheme is javascript".
    public var detail: String
    /// What would have been accepted: "https".
    public var accepted: String

    public init(parameter: String, problem: Problem, detail: String, accepted: String) {
        self.parameter = parameter
        self.problem = problem
        self.detail = detail
        self.accepted = accepted
    }

    /// `parameter: detail. Accepted: accepted.`
    public var description: String {
        "\(parameter): \(detail). Accepted: \(accepted)."
    }
}
