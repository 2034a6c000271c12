/// Apple's judgement of whether the user is a real person (`real_user_status`).
public enum RealUserStatus: Int, Sendable, Codable, Equatable {
    /// 0: the platform cannot tell (not iOS 14+, or not the first sign-in).
    case unsupported = 0
    /// 1: Apple is not sure; treat as a normal user, never as a bot.
    case unknown = 1
    /// 2: very likely a real person.
    case likelyReal = 2
}
