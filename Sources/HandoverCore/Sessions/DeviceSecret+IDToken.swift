import Foundation
import HandoverSchema
import SessionTokens

extension DeviceSecret {
    /// `ds_hash`, computed from the stored digest, so an ID token can be reissued without the
    /// secret itself.
    package var secretHashForIDToken: String {
        IDTokenClaims.deviceSecretHash(sha256Hex: secretHash) ?? ""
    }
}
