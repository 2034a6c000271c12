import FluentKit
import Foundation
@testable import HandoverCore
@testable import HandoverServer
import SQLKit
import Testing

/// The hand-over is one domain operation in one transaction (issue 38): the run, the device's
/// step, the previous holder's sessions ended and their backends' logout tokens owed, all or none.
@Suite(.timeLimit(.minutes(5))) struct HandOverAtomicityTests {
    struct Injected: Error {}

    /// The server's steps, then a failure, still inside the hand-over's transaction.
    struct FailingAfterSteps: HandOverSteps {
        let steps: any HandOverSteps

        func devicesChangeHands(_ handOvers: [HandOverStart], on db: any Database) async throws -> HandOverAftermath {
            _ = try await steps.devicesChangeHands(handOvers, on: db)
            throw Injected()
        }
    }

    @Test(arguments: TestDatabase.available) func aFailureAfterTheRunIsWrittenLeavesNoRunAndNoEndedSession(database: TestDatabase) async throws {
        let (rig, issuer) = try await OpenIDConnectTests.rig(database)
        let created = try await rig.test.request(.POST, "/api/v1/apps", json: [
            "name": "Handover", "appIDs": ["ABCDE12345.\(AppleRig.clientID)"], "logoutAction": "https://handover.example.com/logout",
            "backchannelLogoutURI": issuer + "/no-backend-here",
        ], key: rig.test.adminKey)
        let appID = try #require(UUID(uuidString: created.json["id"] as? String ?? ""), "\(created.text)")
        let device = try await rig.test.registerDevice()
        let deviceID = try #require(UUID(uuidString: device.id))
        let signedIn = try await rig.signIn(sub: "nurse-a", extra: ["deviceID": device.id])
        let token = signedIn["accessToken"] as? String ?? ""
        #expect(try await rig.me(token).status == 200)

        let server = rig.test.server
        let served = server.runs(server.databases.primary)
        let steps = try #require(served.handOver, "the server's runs carry its hand-over steps")
        let runs = served.handingOver(with: FailingAfterSteps(steps: steps))
        await #expect(throws: Injected.self) {
            _ = try await runs.createRun(deviceID: deviceID, appIDs: [appID])
        }

        let sql = try #require(server.databases.primary as? any SQLDatabase)
        func count(_ query: SQLQueryString) async throws -> Int {
            try await sql.raw("SELECT COUNT(*) AS n FROM \(query)").first()?.decode(column: "n", as: Int.self) ?? -1
        }
        #expect(try await count("logout_runs WHERE device_id = \(bind: deviceID)") == 0, "no run was left")
        #expect(try await count("logout_items") == 0)
        #expect(try await count("user_sessions WHERE revoked_at IS NOT NULL") == 0, "no session was ended")
        #expect(try await count("backchannel_logout_deliveries") == 0, "no backend was owed a logout token")
        let view = try await rig.test.request(.GET, "/api/v1/devices/\(device.id)", key: rig.test.adminKey)
        #expect(view.json["status"] as? String == "in_service", "the device did not step: \(view.text)")
        #expect(try await rig.me(token).status == 200, "the session still works, in this instance's memory too")

        // The same start with the server's own steps: all of it at once.
        let run = try await rig.test.request(.POST, "/api/v1/devices/\(device.id)/logout-runs", json: ["apps": [appID.uuidString]], key: device.key)
        #expect(run.status == 201, "\(run.text)")
        #expect(try await rig.me(token).status == 401, "the previous user's session ended with the hand-over")
        #expect(try await count("backchannel_logout_deliveries") == 1)
        try await rig.stop()
    }
}
