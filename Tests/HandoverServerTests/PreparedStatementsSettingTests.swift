import Foundation
import HandoverConfiguration
@testable import HandoverServer
import Testing

/// `HANDOVER_PREPARED_STATEMENTS`: PostgreSQL's prepared statements, on by default, off behind a
/// pooler that does not keep them.
@Suite struct PreparedStatementsSettingTests {
    @Test func theSwitchIsOnByDefaultAndNamedWhenWrong() throws {
        #expect(try ServerConfiguration.fromEnvironment([:]).preparedStatements)
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_PREPARED_STATEMENTS": "false"]).preparedStatements == false)
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_PREPARED_STATEMENTS": "off"]).preparedStatements == false)
        #expect(try ServerConfiguration.fromEnvironment(["HANDOVER_PREPARED_STATEMENTS": "true"]).preparedStatements)
        #expect {
            _ = try ServerConfiguration.fromEnvironment(["HANDOVER_PREPARED_STATEMENTS": "sometimes"])
        } throws: { error in
            "\(error)".contains("HANDOVER_PREPARED_STATEMENTS") && "\(error)".contains("is not a switch")
        }
    }

    /// With the switch off and on, a run starts and its callbacks are recorded, the same
    /// statements sent unnamed or prepared (on SQLite the switch changes nothing).
    @Test(arguments: TestDatabase.available, [false, true])
    func aHandOverIsRecordedEitherWay(database: TestDatabase, prepared: Bool) async throws {
        try await TestServer.with(database, configure: { $0.preparedStatements = prepared }) { test in
            for name in ["Notes", "Chart"] { try await test.registerTarget(name) }
            let device = try await test.registerDevice()
            // Three runs: each statement is prepared from its third sighting on.
            for _ in 0..<3 {
                let run = try await LogoutRunTests.startRun(test, device: device)
                for item in run.items {
                    let url = try LogoutRunTests.callback(try #require(item["link"] as? String), "success", on: test)
                    let page = try await test.request(.GET, url)
                    #expect(page.status == 200, "\(page.text)")
                }
                let read = try await test.request(.GET, "/api/v1/logout-runs/\(run.id)", key: test.adminKey)
                #expect(read.json["status"] as? String == "completed", "\(read.text)")
            }
        }
    }
}
