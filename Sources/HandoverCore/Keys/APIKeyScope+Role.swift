import Foundation
import HandoverSchema

extension APIKeyScope {
    /// The role a person-or-service key carries; nil for a device key.
    package var role: AdminRole? {
        switch self {
        case .admin: .admin
        case .operator: .operator
        case .viewer: .viewer
        case .device: nil
        }
    }
}
