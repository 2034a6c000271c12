// apns-loopback: Apple's push provider API on this machine, for trying out-of-band operations by
// push without Apple (a developer tool; `handover` itself never links it).
//
//   swift run apns-loopback [--directory DIR]
//
// Starts an APNs-protocol server (HTTP/2 over TLS with a self-signed certificate, on a free
// loopback port) and a push inbox (plain HTTP on another free loopback port) where a simulated
// phone reads what was pushed to its token: GET /push-inbox/<token> -> {"payloads":[...]}. Makes a
// provider key for it, writes the key and the certificate into DIR (a new temporary folder by
// default), prints the environment `handover serve --developer-mode` and `handover simulate oob`
// need, and runs until SIGINT or SIGTERM:
//
//   eval "$(swift run apns-loopback)"
//   swift run handover serve --developer-mode &
//   swift run handover simulate oob --server http://127.0.0.1:8080 --admin-key hov_… --dispatcher push
import APNsTestServer
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import UnixSignals

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") || arguments.contains("-h") {
    print("""
        USAGE: apns-loopback [--directory <dir>]

        Runs Apple's push provider API on 127.0.0.1 (HTTP/2, TLS, self-signed) and a push inbox, and
        prints the environment for `handover serve --developer-mode` and `handover simulate oob`:

          eval "$(swift run apns-loopback)"

        OPTIONS:
          --directory <dir>   Where the provider key and the certificate are written (default: a new temporary folder).
        """)
    exit(0)
}
var directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-loopback-\(UUID().uuidString.prefix(8))")
if let index = arguments.firstIndex(of: "--directory") {
    guard index + 1 < arguments.count else {
        FileHandle.standardError.write(Data("Error: --directory: a folder is missing. Accepted: --directory <dir>.\n".utf8))
        exit(64)
    }
    directory = URL(fileURLWithPath: arguments[index + 1])
} else if let unknown = arguments.first {
    FileHandle.standardError.write(Data("Error: '\(unknown)' is not an option. Accepted: --directory <dir>, --help.\n".utf8))
    exit(64)
}

let keyID = "LOOPBACK01"
let server = try await APNsTestServer.start()
let key = P256.Signing.PrivateKey()
server.registerKey(keyID: keyID, teamID: keyID, publicKey: key.publicKey)
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
let keyFile = directory.appendingPathComponent("AuthKey_\(keyID).p8")
let caFile = directory.appendingPathComponent("apns-loopback-ca.pem")
try Data(key.pemRepresentation.utf8).write(to: keyFile)
try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
try Data(server.certificatePEM.utf8).write(to: caFile)

let inbox = try await PushInboxServer.start(server: server)
FileHandle.standardOutput.write(Data("""
    export HANDOVER_APNS_PRIVATE_KEY_FILE=\(keyFile.path)
    export HANDOVER_APNS_KEY_ID=\(keyID)
    export HANDOVER_APNS_TEAM_ID=\(keyID)
    export HANDOVER_APNS_TOPIC=dev.handover.loopback
    export HANDOVER_APNS_BASE_URL=\(server.baseURL.absoluteString)
    export HANDOVER_APNS_CA_FILE=\(caFile.path)
    export HANDOVER_PUSH_INBOX=http://127.0.0.1:\(inbox.port)/push-inbox

    """.utf8))
FileHandle.standardError.write(Data("apns-loopback: APNs on \(server.baseURL.absoluteString), inbox on http://127.0.0.1:\(inbox.port)/push-inbox; Ctrl-C stops\n".utf8))

for await _ in await UnixSignalsSequence(trapping: [.sigterm, .sigint]) { break }
try? await inbox.channel.close()
try? await server.shutdown()
try? FileManager.default.removeItem(at: directory)
