/// What a registry accepts as an app's logout action, whatever its method: the rule the server
/// applies when an app is registered or changed, and that an app or launcher can apply itself.
///
/// - At most ``maximumLength`` (2,048) bytes: a real logout link is far shorter, and every run
///   writes the action into each link it sends.
/// - Not on a scheme that runs code where it opens (`javascript:`, `data:`, `file:`…), that iOS
///   keeps for its own apps (`tel:`, `sms:`, `facetime:`, `maps:`, `itms-services:`, `prefs:`,
///   `shortcuts:`, any `x-apple-…`…), or, for x-callback-url, the web's (`http`, `https`): an
///   x-callback action opens another app by its own custom scheme.
///
/// ```swift
/// try LogoutActionRule.check("notes://x-callback-url/logout", xCallback: true)   // passes
/// try LogoutActionRule.check("tel://x-callback-url/logout", xCallback: true)     // throws: reserved by iOS
/// ```
public enum LogoutActionRule {
    /// The longest action accepted, in UTF-8 bytes (an action is ASCII: one byte a character).
    public static let maximumLength = 2048

    /// Why a scheme is refused.
    public enum SchemeClass: String, Sendable, CaseIterable {
        /// The scheme runs code or reads local data where the link opens.
        case runsCode = "runs code or reads local data"
        /// iOS keeps the scheme for its own apps and settings.
        case reservedByIOS = "is reserved by iOS for its own apps"
        /// A web scheme, where an x-callback action needs an app's custom scheme.
        case web = "is a web scheme; an x-callback action opens an app by its custom scheme"
    }

    /// Schemes that run code or read local data.
    public static let codeSchemes: Set<String> = [
        "javascript", "vbscript", "data", "file", "about", "blob", "filesystem", "content", "intent", "jar", "view-source", "livescript",
    ]

    /// Schemes iOS keeps for its own apps, or that open the system's settings, telephony or stores.
    /// Every scheme starting `x-apple-` is reserved too.
    public static let iOSSchemes: Set<String> = [
        "tel", "telprompt", "sms", "mailto", "message", "facetime", "facetime-audio", "facetime-prompt", "facetime-audio-prompt",
        "maps", "map", "music", "audio-player-event", "itms", "itms-apps", "itms-appss", "itms-services", "itmss", "itms-books", "itms-bookss",
        "itms-podcasts", "itms-watch", "itms-messages", "ibooks", "podcasts", "videos", "prefs", "app-prefs", "app-settings", "settings-navigation",
        "shortcuts", "workflow", "wallet", "shoebox", "photos-redirect", "calshow", "webcal", "addressbook", "mobilenotes", "findmy", "fmip1",
        "gamecenter", "applenews", "applenewss", "news", "x-web-search",
    ]

    /// The class of a reserved scheme (lower case), or nil when the scheme may carry an action.
    public static func reservedClass(of scheme: String, xCallback: Bool) -> SchemeClass? {
        let scheme = scheme.lowercased()
        if codeSchemes.contains(scheme) { return .runsCode }
        if iOSSchemes.contains(scheme) || scheme.hasPrefix("x-apple") { return .reservedByIOS }
        if xCallback, scheme == "http" || scheme == "https" { return .web }
        return nil
    }

    /// Checks an action's length and scheme; the parsers of its method check the rest.
    ///
    /// - Parameters:
    ///   - action: the logout action as registered, such as `notes://x-callback-url/logout`.
    ///   - xCallback: whether the action is an x-callback-url (then `http` and `https` are
    ///     refused too; a ULC action must be `https`, which ``CallbackPolicy`` checks).
    /// - Throws: ``LinkError`` naming `action`: `tooLong` past ``maximumLength``, or
    ///   `disallowedScheme` with the scheme's class and what is accepted.
    public static func check(_ action: String, xCallback: Bool) throws(LinkError) {
        let length = action.utf8.count
        guard length <= maximumLength else {
            throw LinkError(parameter: "action", problem: .tooLong, detail: "the action is \(length) characters long",
                            accepted: "at most \(maximumLength) characters, as a real logout link is")
        }
        guard let colon = action.firstIndex(of: ":") else { return }
        let scheme = String(action[..<colon])
        guard let reserved = reservedClass(of: scheme, xCallback: xCallback) else { return }
        let accepted = xCallback
            ? "the app's own custom scheme, such as notes://x-callback-url/logout (not http, https, a scheme iOS keeps such as tel or itms-services, or one that runs code such as javascript)"
            : "an https URL such as https://app.example.com/logout"
        throw LinkError(parameter: "action", problem: .disallowedScheme,
                        detail: "the scheme \(RawURL.excerpt(scheme.lowercased())) \(reserved.rawValue)", accepted: accepted)
    }
}
