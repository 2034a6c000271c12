import Foundation

/// Constants of Apple's Sign in with Apple service.
public enum AppleID {
    /// The `iss` claim of every token Apple signs, and the `aud` of every client secret sent to Apple.
    public static let issuer = "https://appleid.apple.com"

    /// Apple's production origin. Every client in this module takes a `baseURL` that defaults to it,
    /// so tests and staging can point at another server (for example `AppleIDTestServer`).
    public static let defaultBaseURL = URL(string: "https://appleid.apple.com")!
}

extension URL {
    /// `self` with `path` (which starts with "/") appended, keeping any path prefix of the base URL.
    func appendingEndpoint(_ path: String) -> URL {
        var base = absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path)!
    }
}
