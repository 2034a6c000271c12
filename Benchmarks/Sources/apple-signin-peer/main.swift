// A local Apple-protocol server (AppleIDTestServer) for scripts/bench-sessions.sh, which needs a
// real signed-in session to load `GET /api/v1/me`:
//   apple-signin-peer DIR
// starts the server, writes DIR/AuthKey.p8 and prints `apple <baseURL>`; then reads one line
// from stdin, a Handover server's URL, signs a user in there (nonce, identity token, code) and
// prints `token <accessToken>`. It serves until stdin closes.
import AppleIDTestServer
import AppleSignIn
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat

/// Writes a line to stdout at once (the script reads it while this keeps running).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let directory = URL(fileURLWithPath: CommandLine.arguments.dropFirst().first ?? ".")
let clientID = "com.example.bench"
let apple = try await AppleIDTestServer.start(clock: ManualClock(start: Date()))
let pem = try apple.registerClient(clientID: clientID, teamID: "TEAM123456", keyID: "KEY1234567")
try pem.write(to: directory.appendingPathComponent("AuthKey.p8"), atomically: true, encoding: .utf8)
say("apple \(apple.baseURL.absoluteString)")

func post(_ url: String, _ body: [String: Any]) async throws -> [String: Any] {
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
    return (try JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
}

if let server = readLine() {
    let nonce = try await post(server + "/auth/apple/nonce", [:])["nonce"] as? String ?? ""
    let token = try await apple.makeIdentityToken(sub: "bench-user", aud: clientID, nonce: IdentityTokenVerifier.sha256Hex(nonce),
                                                  email: "bench@example.com")
    let code = apple.issueAuthorizationCode(clientID: clientID, sub: "bench-user", email: "bench@example.com")
    let grant = try await post(server + "/auth/apple", ["identityToken": token, "authorizationCode": code, "nonce": nonce])
    say("token \(grant["accessToken"] as? String ?? "none: \(grant)")")
}
while readLine() != nil {}
try await apple.shutdown()
