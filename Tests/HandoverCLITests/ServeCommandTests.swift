import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct ServeCommandTests {
    @Test(arguments: ["bad host", ".starts-with-dot", "http://127.0.0.1", "::1"])
    func aHostThatIsNotAnAddressIsAUsageErrorNotACrash(host: String) async throws {
        let result = try await HandoverBinary.run(["serve", "--host", host, "--port", "0", "--data-dir", NSTemporaryDirectory() + "handover-host-test"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--host"))
        #expect(result.stderr.contains("Accepted"))
    }

    /// Before (issue 66, item 7): the first admin key went to standard output, which under the
    /// shipped systemd unit is the journal. Now it goes to an owner-only file in the data
    /// directory, whose path is printed; the key itself only on a terminal (here a pipe).
    @Test func theFirstAdminKeyGoesToAnOwnerOnlyFileAndNotToTheLog() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("handover-first-key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await ServerProcess.start(dataDirectory: data)
        let text = first.startupText
        _ = await first.terminate()
        let file = data.appendingPathComponent("first-admin-key")
        #expect(!text.contains("hov_"), "no key in the output, a log under systemd: \(text)")
        #expect(text.contains(file.path) && text.contains("handover admin create-key"), "\(text)")
        let mode = (try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        let key = try #require(first.firstAdminKey)
        #expect(key.hasPrefix("hov_"))
        let second = try await ServerProcess.start(dataDirectory: data)
        #expect(second.firstAdminKey == nil && !second.startupText.contains(file.path), "a key is made on the first start only")
        #expect(try await second.request("GET", "api/v1/apps", key: key).status == 200, "the file's key is the admin key")
        _ = await second.terminate()
    }

    @Test func aPortOutOfRangeIsAUsageError() async throws {
        let result = try await HandoverBinary.run(["serve", "--port", "70000"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--port: 70000 is not a port"))
    }
}
