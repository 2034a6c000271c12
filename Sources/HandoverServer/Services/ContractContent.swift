import Foundation
import HandoverCore
import HandoverProtocol
import Vapor

// The contract's wire types, as Vapor content for the plain routes (server-sent events, the
// dashboard, the error middleware); the generated API encodes them itself.
extension LogoutRunView: Content {}

extension APIErrorBody: Content {}

extension SessionGrant: Content {}

// The domain's out-of-band views and inputs, as the plain routes read and answer them.
extension OperationView: Content {}

extension EnrolledDeviceView: Content {}

extension NewOperation: Content {}

extension AppRegistrar.Input: Content {}

// The generated API names the domain's views, unqualified, in its schema overrides
// (`typeOverrides` in Tools/OpenAPIGenerator/server.yaml), and its files do not import the domain:
// this module gives it the names.
typealias OperationView = HandoverCore.OperationView
typealias EnrolledDeviceView = HandoverCore.EnrolledDeviceView
typealias CallbackAllowlistView = HandoverCore.CallbackAllowlistView
typealias OutOfBandLockView = HandoverCore.OutOfBandLockView
typealias NewOperation = HandoverCore.NewOperation
typealias AllowlistUpdate = HandoverCore.AllowlistUpdate
typealias AppRegistrar = HandoverCore.AppRegistrar
