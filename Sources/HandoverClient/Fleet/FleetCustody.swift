import Foundation

/// Who holds the device now: the custody the server recorded when the launcher checked a person
/// out (``FleetServer/checkOut(badge:)``, ``FleetServer/checkOut(accessToken:)``). The device's
/// next logout run checks it in.
public struct FleetCustody: Sendable, Equatable {
    /// How the person was checked out.
    public enum Method: String, Sendable, Equatable {
        /// By their badge, looked up at the organisation's badge directory.
        case badge
        /// By their Handover access token.
        case launcher
        /// By a sign-in that carried the device (email link, Sign in with Apple, Native SSO, or
        /// the phone approving an out-of-band request).
        case emailLink = "email_link", signInWithApple = "sign_in_with_apple", nativeSSO = "native_sso", outOfBand = "out_of_band"
    }

    public var id: UUID
    public var deviceID: UUID
    /// The person: the server's user id (the subject of its tokens).
    public var userID: UUID
    /// The name and email as the person's sign-in or badge lookup gave them.
    public var personName: String?
    public var personEmail: String?
    public var method: Method
    public var checkedOutAt: Date

    /// How a launcher's screen names the person: the name, else the email.
    public var personLabel: String { personName ?? personEmail ?? userID.uuidString.lowercased() }

    public init(id: UUID, deviceID: UUID, userID: UUID, personName: String?, personEmail: String?, method: Method, checkedOutAt: Date) {
        self.id = id
        self.deviceID = deviceID
        self.userID = userID
        self.personName = personName
        self.personEmail = personEmail
        self.method = method
        self.checkedOutAt = checkedOutAt
    }
}
