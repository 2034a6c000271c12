import Foundation

/// What a person (or a named key) may do on the dashboard and the API (issue 39). Each role
/// includes the ones below it: an operator also sees, an admin also operates.
package enum AdminRole: String, Codable, Sendable, CaseIterable, Comparable {
    /// Sees: devices, runs, history, scorecards, exports.
    case viewer
    /// Acts on devices: starts a run, puts a device back in service, confirms an erase, imports
    /// devices into its sites.
    case `operator`
    /// Also the registry, webhooks, keys, MDM settings and who has which role.
    case admin

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .operator: 1
        case .admin: 2
        }
    }

    package static func < (lhs: AdminRole, rhs: AdminRole) -> Bool { lhs.rank < rhs.rank }

    /// Whether this role may do what `required` may.
    package func includes(_ required: AdminRole) -> Bool { self >= required }
}
