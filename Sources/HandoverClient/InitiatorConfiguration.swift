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
    /// Signed-requests extension: sign every ULC link with this key (an x-callback-url has no
    /// signature). Off by default.
    public var signer: RequestSigner?
    /// The launcher's own custom scheme (`launcher`), where x-callback apps answer:
    /// `launcher://x-callback-url/handover-logout-reply?…`, taken by the launcher's
    /// ``XCallbackRouter`` (see ``LogoutInitiator/takeReplies(through:)``). When `nil`, x-callback
    /// apps answer on the ``callbackBase`` URLs like ULC apps (`x-cancel` on the error URL).
    public var xCallbackReplyScheme: String?

    public init(callbackBase: URL, timeout: Duration = .seconds(20), resends: Int = 2, signer: RequestSigner? = nil,
                xCallbackReplyScheme: String? = nil) {
        self.callbackBase = callbackBase
        self.xCallbackReplyScheme = xCallbackReplyScheme
        self.timeout = timeout
        self.resends = max(0, resends)
        self.signer = signer
    }
}
