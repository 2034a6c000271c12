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

    @Test func aPortOutOfRangeIsAUsageError() async throws {
        let result = try await HandoverBinary.run(["serve", "--port", "70000"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--port: 70000 is not a port"))
    }
}
