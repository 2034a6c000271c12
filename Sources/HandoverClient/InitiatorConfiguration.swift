import Foundation

/// How a ``LogoutInitiator`` sends links and waits for answers.
public struct InitiatorConfiguration: Sendable {
    /// Where callbacks come back: `<callbackBase>/<run>/<app>/success?n=<nonce>` and
    /// `…/error?n=<nonce>`. It must be a universal link the launcher claims (or, in developer
    /// mode, a loopback http URL).
    public var callbackBase: URL
    /// How long to wait for one app's answer: 20 s by default.
    public var timeout: Duration
    /// How many times a link is sent again after a timeout before the app counts as timed out.
    public var resends: Int
    /// Signed-requests extension: sign every link with this key. Off by default.
    public var signer: RequestSigner?

    public init(callbackBase: URL, timeout: Duration = .seconds(20), resends: Int = 2, signer: RequestSigner? = nil) {
        self.callbackBase = callbackBase
        self.timeout = timeout
        self.resends = max(0, resends)
        self.signer = signer
    }
}
