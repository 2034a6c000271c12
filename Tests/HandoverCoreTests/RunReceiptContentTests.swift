import Foundation
@testable import HandoverCore
import HandoverProtocol
import Testing

/// What a run's receipt says, without a database or a key (issue 65): each app in order with its
/// method and how its answer arrived, the holder and the device as read, each backend's token,
/// and the MDM command only for a failed run. Signing and the log are `AuditLogTests`'.
@Suite struct RunReceiptContentTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let device = UUID(), mail = UUID(), chart = UUID(), api = UUID()

    static func run(_ state: LogoutRunState) -> FinishedRun {
        let at = { (seconds: TimeInterval) in start.addingTimeInterval(seconds) }
        let items = [
            LogoutRunView.Item(id: UUID(), appID: chart, app: "Chart", position: 1, status: state == .failed ? .timedOut : .succeeded, attempts: 2,
                               issuedAt: at(0), deadlineAt: at(20), finishedAt: at(40), reportedBy: state == .failed ? nil : .browser),
            LogoutRunView.Item(id: UUID(), appID: mail, app: "Mail", position: 0, status: .succeeded, attempts: 1,
                               issuedAt: at(0), deadlineAt: at(20), finishedAt: at(3), reportedBy: .launcher),
            LogoutRunView.Item(id: UUID(), appID: api, app: "Records API", position: 2, status: .succeeded, attempts: 1,
                               issuedAt: at(0), deadlineAt: at(20), finishedAt: at(5)),
        ]
        let view = LogoutRunView(id: UUID(), deviceID: device, status: state, createdAt: at(0), finishedAt: at(41), items: items)
        return FinishedRun(run: view.id, device: device, state: state, reason: nil, view: view,
                           methods: [items[0].id: .xCallback, items[2].id: .backendOnly])
    }

    static let facts = RunReceiptContent.Facts(
        device: .init(id: device, name: "ward-7-phone-1", site: "Ward 7"),
        holder: .init(iss: "https://handover.example.com", sub: "ada", checkedOutAt: RunReceipt.timestamp(start.addingTimeInterval(-3600)), checkedOutBy: "badge"),
        command: .init(action: .lostMode, connector: "jamf", status: .pending),
        backends: [api: .init(clientID: "records", state: .delivered, attempts: 1, lastStatusCode: 200)])

    @Test func aCompletedRunsReceiptNamesEveryAppInOrderAndNoCommand() {
        let run = Self.run(.completed)
        let receipt = RunReceiptContent.receipt(of: run, facts: Self.facts, issuer: "https://handover.example.com", now: Self.start.addingTimeInterval(41))
        #expect(receipt.iss == "https://handover.example.com" && receipt.jti == run.run.uuidString && receipt.iat == 1_800_000_041)
        #expect(receipt.apps.map(\.name) == ["Mail", "Chart", "Records API"], "in the run's order")
        #expect(receipt.apps.map(\.method) == [.ulc, .xCallback, .backendOnly], "ULC when the run predates methods")
        #expect(receipt.apps.map(\.answeredBy) == ["launcher", "browser", "back-channel"])
        #expect(receipt.apps[2].backend == .init(clientID: "records", delivery: .delivered, attempts: 1, statusCode: 200))
        #expect(receipt.apps[0].backend == nil)
        #expect(receipt.device.name == "ward-7-phone-1" && receipt.holder?.sub == "ada")
        #expect(receipt.mdm == nil, "the command is only a failed run's")
        #expect(receipt.run.status == .completed && receipt.run.finishedAt == RunReceipt.timestamp(Self.start.addingTimeInterval(41)))
    }

    @Test func aFailedRunsReceiptSaysWhichAppTimedOutAndTheCommandItQueued() {
        let receipt = RunReceiptContent.receipt(of: Self.run(.failed), facts: Self.facts, issuer: "https://handover.example.com", now: Self.start)
        #expect(receipt.apps[1].outcome == .timedOut && receipt.apps[1].answeredBy == "deadline")
        #expect(receipt.mdm == .init(action: .lostMode, connector: "jamf", status: .pending))
    }

    @Test func aDeviceGoneIsNamedByItsIdAlone() {
        let receipt = RunReceiptContent.receipt(of: Self.run(.completed), facts: .init(), issuer: "https://handover.example.com", now: Self.start)
        #expect(receipt.device == .init(id: Self.device, name: "", site: nil) && receipt.holder == nil)
    }
}
