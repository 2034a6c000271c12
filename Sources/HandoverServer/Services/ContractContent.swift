import Foundation
import HandoverProtocol
import Vapor

// The contract's wire types, as Vapor content for the plain routes (server-sent events, the
// dashboard, the error middleware); the generated API encodes them itself.
extension LogoutRunView: Content {}

extension APIErrorBody: Content {}

extension SessionGrant: Content {}
