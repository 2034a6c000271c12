import AsyncHTTPClient
import Foundation
import TestPeers
#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOFoundationCompat

/// `Tests/Peers/mdm_vendor.py`: a loopback Jamf Pro or Microsoft Graph, written from the
/// vendors' API references, with controls a test uses to expire tokens and script failures.
final class MDMVendorPeer: @unchecked Sendable {
    enum Vendor: String, Sendable, CaseIterable { case jamf, intune }

    /// A request the vendor received.
    struct Received: Decodable, Sendable {
        var method: String
        var path: String
        var query: String
        var body: String
        var authorization: String
    }

    struct Log: Decodable, Sendable {
        var tokens_issued: Int
        var requests: [Received]
    }

    let vendor: Vendor
    let process: SpawnedProgram
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }
    static let clientID = "handover-test-client"
    static let clientSecret = "s3cret-for-the-loopback-vendor"

    /// Starts it knowing `devices` (serial number → the vendor's device id).
    init(_ vendor: Vendor, devices: [String: String]) async throws {
        self.vendor = vendor
        let peer = try await PythonPeer.start("mdm_vendor.py", [vendor.rawValue, Self.clientID, Self.clientSecret,
                                                                devices.map { "\($0.key)=\($0.value)" }.joined(separator: ",")])
        self.process = peer.process
        self.port = peer.port
    }

    static func isAvailable() -> Bool {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") { return true }
        print("SKIP the MDM vendor loopback: python3 is not installed")
        return false
    }

    /// Every token issued and every request received so far.
    func log() async throws -> Log {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url + "/_log"), timeout: .seconds(10))
        return try JSONDecoder().decode(Log.self, from: Data(buffer: try await response.body.collect(upTo: 10 << 20)))
    }

    /// Expires every token issued so far, or makes the next command requests answer `statuses`.
    func control(expireTokens: Bool = false, failNext: [Int] = []) async throws {
        var request = HTTPClientRequest(url: url + "/_control")
        request.method = .POST
        let body = try JSONSerialization.data(withJSONObject: ["expire_tokens": expireTokens, "fail_next": failNext])
        request.body = .bytes(ByteBuffer(data: body))
        _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    }

    /// The command requests (not tokens or lookups), in order.
    func commands() async throws -> [Received] {
        try await log().requests.filter { $0.method == "POST" && !$0.path.hasSuffix("/token") }
    }

    func stop() { PythonPeer(process: process, port: port).stop() }

    /// The management id the Jamf loopback gives a device id (uuid5 of the URL namespace).
    static func jamfManagementID(_ deviceID: String) async throws -> String {
        try await ChildProcess.run(["python3", "-c", "import uuid,sys;print(uuid.uuid5(uuid.NAMESPACE_URL,'jamf-management-'+sys.argv[1]))", deviceID])
            .outputText.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
