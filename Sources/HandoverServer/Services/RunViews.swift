import Foundation
import HandoverCore
import HandoverProtocol
import Vapor

/// A logout run as the API shows it: the contract's wire type, served as Vapor content.
typealias RunView = LogoutRunView

extension LogoutRunView: Content {}
