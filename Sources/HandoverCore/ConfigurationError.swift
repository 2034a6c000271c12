import Foundation

/// A setting that cannot be used, with what would be accepted.
public struct ConfigurationError: Error, CustomStringConvertible {
    public var setting: String
    public var problem: String
    public var accepted: String
    public var description: String { "\(setting): \(problem). Accepted: \(accepted)." }

    public init(setting: String, problem: String, accepted: String) {
        self.setting = setting
        self.problem = problem
        self.accepted = accepted
    }
}
