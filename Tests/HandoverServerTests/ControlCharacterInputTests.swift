import Foundation
import HandoverServer
import Testing

/// Found with schemathesis (`scripts/check-openapi.sh`), which sends U+0000 in strings: on PostgreSQL
/// such text reached the database, which refuses it in `text` columns, and the API answered 500. Every
/// stored text field now refuses control characters with a 422 naming the field.
@Suite(.timeLimit(.minutes(5)), .stopsTestServers) struct ControlCharacterInputTests {
    static let cases: [(path: String, body: String, field: String)] = [
        ("/api/v1/devices", #"{"name":"ward\u00007"}"#, "name"),
        ("/api/v1/devices", #"{"name":"ward\u001b[31m7"}"#, "name"),
        ("/api/v1/apps", #"{"name":"No\u0000tes","appIDs":["ABCDE12345.com.example.notes"],"logoutAction":"https://notes.example.com/logout"}"#, "name"),
        ("/api/v1/apps", #"{"name":"No\u0085tes","appIDs":["ABCDE12345.com.example.notes"],"logoutAction":"https://notes.example.com/logout"}"#, "name"),
        ("/api/v1/webhooks", #"{"url":"https://mdm.example.com/h\u0000","events":["run.failed"]}"#, "url"),
        ("/api/v1/webhooks", #"{"url":"https://mdm.example.com/h","events":["run.failed"],"secret":"0123456789abcdef\u0000"}"#, "secret"),
    ]

    @Test(arguments: TestDatabase.available)
    func textWithControlCharactersIsA422NamingTheFieldAndIsNotStored(database: TestDatabase) async throws {
        let test = try await TestServer.start(database)
        for (path, body, field) in Self.cases {
            let reply = try await test.request(.POST, path, json: try JSONSerialization.jsonObject(with: Data(body.utf8)), key: test.adminKey)
            #expect(reply.status == 422, "\(path) \(body): \(reply.text)")
            #expect(reply.json["error"] as? String == "invalid_field", "\(reply.text)")
            #expect(reply.json["field"] as? String == field, "\(reply.text)")
        }
        for path in ["/api/v1/devices", "/api/v1/apps", "/api/v1/webhooks"] {
            #expect(try await test.request(.GET, path, key: test.adminKey).array.isEmpty, "\(path) stored a refused input")
        }
        try await test.stop()
    }

    @Test func ordinaryUnicodeNamesAreStillAccepted() async throws {
        let test = try await TestServer.start(.sqlite)
        let reply = try await test.request(.POST, "/api/v1/devices", json: ["name": "Station 7 – Zoë’s phone 📱"], key: test.adminKey)
        #expect(reply.status == 201, "\(reply.text)")
        #expect((reply.json["device"] as? [String: Any])?["name"] as? String == "Station 7 – Zoë’s phone 📱")
        try await test.stop()
    }
}
