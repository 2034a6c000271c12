import Foundation
import TestPeers

/// A real SMTP server on loopback: aiosmtpd (from PyPI) storing every message in a Maildir
/// (`Tests/Peers/smtp_server.py`, which prints its port once it accepts connections). With
/// `tls`, it requires STARTTLS with a self-signed certificate made by openssl.
final class SMTPTestServer: @unchecked Sendable {
    let port: Int
    let directory: URL
    let certificateFile: URL?
    private let peer: PythonPeer

    static func start(tls: Bool = false) async throws -> SMTPTestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-smtp-\(UUID().uuidString)")
        for folder in ["tmp", "new", "cur"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("mail/\(folder)"), withIntermediateDirectories: true)
        }
        var certificate: URL?
        var arguments = [directory.appendingPathComponent("mail").path]
        if tls {
            let cert = directory.appendingPathComponent("cert.pem"), key = directory.appendingPathComponent("key.pem")
            _ = try await ChildProcess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", cert.path,
                                            "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
            arguments += [cert.path, key.path]
            certificate = cert
        }
        let peer = try await PythonPeer.start("smtp_server.py", arguments)
        return SMTPTestServer(port: peer.port, directory: directory, certificateFile: certificate, peer: peer)
    }

    private init(port: Int, directory: URL, certificateFile: URL?, peer: PythonPeer) {
        self.port = port
        self.directory = directory
        self.certificateFile = certificateFile
        self.peer = peer
    }

    func stop() {
        peer.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every message received so far, as raw RFC 5322 text.
    func messages() -> [String] {
        let folder = directory.appendingPathComponent("mail/new")
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: [.creationDateKey])) ?? []
        return files.sorted { $0.lastPathComponent < $1.lastPathComponent }
            .compactMap { try? String(contentsOf: $0, encoding: .utf8) }
    }

    /// The sign-in link of the newest message to `address`, quoted-printable decoded.
    func link(to address: String) -> URL? {
        for message in messages().reversed() where message.lowercased().contains("to: <\(address.lowercased())>") {
            let body = Self.decodeQuotedPrintable(message)
            guard let range = body.range(of: #"https?://[^\s]+/auth/email/verify\?token=[A-Za-z0-9_-]+"#, options: .regularExpression) else { continue }
            return URL(string: String(body[range]))
        }
        return nil
    }

    static func decodeQuotedPrintable(_ text: String) -> String {
        let joined = text.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=\n", with: "")
        var bytes: [UInt8] = []
        var iterator = Array(joined.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "="), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
