import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct LinkCommandTests {
    static let seedLink = "https://appb.companyb.com/logout?ulc-success=https%3A%2F%2Fappa.com%2Fsuccess&ulc-error=https%3A%2F%2Fappa.com%2Ferror"

    @Test func inspectPrintsKindActionAndDecodedCallbacksAndExitsZero() async throws {
        let result = try await HandoverBinary.run(["link", "inspect", Self.seedLink])
        #expect(result.status == 0)
        #expect(result.stdout.contains("kind:     ulc"))
        #expect(result.stdout.contains("action:   https://appb.companyb.com/logout"))
        #expect(result.stdout.contains("success:  https://appa.com/success"))
        #expect(result.stdout.contains("error:    https://appa.com/error"))
        #expect(result.stdout.contains("verdict:  accept"))
    }

    @Test func inspectExitsOneWithTheReasonWhenRejected() async throws {
        let result = try await HandoverBinary.run(["link", "inspect", "--allow-host", "appa.com",
                                             Self.seedLink.replacingOccurrences(of: "appa.com%2Fsuccess", with: "evil.com%2Fsuccess")])
        #expect(result.status == 1)
        #expect(result.stdout.contains("reason:   ulc-success: the host evil.com is not on the allowlist"))
    }

    @Test func inspectJSONGivesEveryField() async throws {
        let result = try await HandoverBinary.run(["link", "inspect", "--json", Self.seedLink])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "ulc")
        #expect(object["verdict"] as? String == "accept")
        #expect((object["fields"] as? [String: String])?["success"] == "https://appa.com/success")
    }

    @Test func makeBuildsALinkThatInspectAccepts() async throws {
        let made = try await HandoverBinary.run(["link", "make", "--action", "https://appb.example.com/logout?force=1",
                                           "--success", "https://l.example.com/ok?run=1&n=a#x", "--error", "https://l.example.com/err"])
        #expect(made.status == 0)
        let link = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(link == "https://appb.example.com/logout?force=1&ulc-success=https%3A%2F%2Fl.example.com%2Fok%3Frun%3D1%26n%3Da%23x&ulc-error=https%3A%2F%2Fl.example.com%2Ferr")
        #expect(try await HandoverBinary.run(["link", "inspect", link]).status == 0)
    }

    @Test func makeRefusesABadCallbackNamingTheOption() async throws {
        let result = try await HandoverBinary.run(["link", "make", "--action", "https://appb.example.com/logout",
                                             "--success", "javascript:alert(1)", "--error", "https://l.example.com/err"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--success: the scheme is javascript"))
    }

    @Test func checkWritesOneJSONLinePerURL() async throws {
        let input = [Self.seedLink, "", "https://appb.com/l?ulc-success=javascript%3Ax&ulc-error=https%3A%2F%2Fa.com", "not a url"].joined(separator: "\n")
        let result = try await HandoverBinary.run(["link", "check"], stdin: input)
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 3)
        #expect(lines[0]?["verdict"] as? String == "accept")
        #expect(lines[0]?["kind"] as? String == "ulc")
        #expect(lines[1]?["verdict"] as? String == "reject")
        #expect(lines[1]?["kind"] as? String == "ulc")
        #expect((lines[1]?["reason"] as? String)?.contains("javascript") == true)
        #expect(lines[2]?["verdict"] as? String == "reject")
        #expect(lines[2]?["kind"] is NSNull)
        #expect(result.stderr.contains("1 accepted, 2 rejected"))
    }

    @Test func aBadAllowHostEntryIsAUsageError() async throws {
        let result = try await HandoverBinary.run(["link", "inspect", "--allow-host", "*", Self.seedLink])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--allow-host"))
    }
}
