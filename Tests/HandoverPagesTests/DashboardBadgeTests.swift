import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema
import Testing
import HandoverPages

/// The dashboard's "failing" badge: shown once an attempt has failed, not while the first one is
/// on its way (the outboxes count an attempt when they lease it, before the peer answers).
@Suite struct DashboardBadgeTests {
    static func command(attempts: Int, status: Int? = nil, error: String? = nil) -> MDMCommand {
        let command = MDMCommand()
        command.status = .pending
        command.attempts = attempts
        command.lastStatusCode = status
        command.lastError = error
        return command
    }

    @Test func anMDMCommandIsFailingOnlyAfterAnAttemptFailed() {
        #expect(!DashboardLayout.badge(Self.command(attempts: 1)).rendered.contains("failing"), "the first attempt is on its way")
        #expect(DashboardLayout.badge(Self.command(attempts: 1, status: 503)).rendered.contains("failing"))
        #expect(DashboardLayout.badge(Self.command(attempts: 2, error: "connection refused")).rendered.contains("failing"))
    }

    @Test func aBackendIsFailingOnlyAfterAnAttemptFailed() {
        let inFlight = LogoutRunView.Item.BackendLogout(clientID: "com.example.app", state: .pending, attempts: 1)
        #expect(!DashboardLayout.badge(inFlight).rendered.contains("failing"))
        var failed = inFlight
        failed.lastError = "connection refused"
        #expect(DashboardLayout.badge(failed).rendered.contains("failing"))
    }
}
