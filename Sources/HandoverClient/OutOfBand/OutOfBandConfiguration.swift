import Foundation
import LinkCallbacks

/// What an ``OutOfBandClient`` accepts.
public struct OutOfBandConfiguration: Sendable {
    /// Hosts the phone redeems at: its own Handover server(s). An envelope whose redeem URL
    /// points elsewhere is refused, so a forged envelope cannot collect the device's signature.
    public var redeemHosts: Set<String>
    /// The allowlist for `x-success`, `x-error` and `x-cancel` targets (hosts and custom schemes).
    public var callbackPolicy: CallbackPolicy
    /// The id the phone answers as; the signing key's fingerprint when `nil`.
    public var deviceID: String?
    /// How long the success screen counts down before opening the `x-success` target.
    public var successCountdown: Duration

    public init(redeemHosts: Set<String>, callbackPolicy: CallbackPolicy = .default, deviceID: String? = nil,
                successCountdown: Duration = .seconds(3)) {
        self.redeemHosts = Set(redeemHosts.map { $0.lowercased() })
        self.callbackPolicy = callbackPolicy
        self.deviceID = deviceID
        self.successCountdown = successCountdown
    }
}
