import Foundation
import TestPeers
#if canImport(Glibc)
import Glibc
#endif

/// A real SMTP server on loopback: aiosmtpd (from PyPI) storing every message in a Maildir.
/// With `tls`, it requires STARTTLS with a self-signed certificate made by openssl.
final class SMTPTestServer: @unchecked Sendable {
    let port: Int
    let directory: URL
    let certificateFile: URL?
    private let process: Process

    /// Why the SMTP tests cannot run here, or nil when they can.
    static func unavailableReason() async -> String? {
        guard let probe = try? await ChildProcess.run(["python3", "-c", "import aiosmtpd"]) else { return "python3 is not installed" }
        return probe.status == 0 ? nil : "aiosmtpd is not installed (pip install aiosmtpd; bash .ci/run does)"
    }

    static func start(tls: Bool = false) async throws -> SMTPTestServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("handover-smtp-\(UUID().uuidString)")
        for folder in ["tmp", "new", "cur"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("mail/\(folder)"), withIntermediateDirectories: true)
        }
        var certificate: URL?
        var arguments = ["python3", "-m", "aiosmtpd", "-n"]
        if tls {
            let cert = directory.appendingPathComponent("cert.pem"), key = directory.appendingPathComponent("key.pem")
            _ = try await ChildProcess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.path, "-out", cert.path,
                                            "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
            arguments += ["--tlscert", cert.path, "--tlskey", key.path]
            certificate = cert
        }
        let port = try LoopbackPort.free()
        arguments += ["-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox", directory.appendingPathComponent("mail").path]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ChildProcess.start(process)
        let server = SMTPTestServer(port: port, directory: directory, certificateFile: certificate, process: process)
        // aiosmtpd says nothing when it listens: the port is tried until it answers, on a thread
        // of its own (``ChildProcess/onOwnThread(_:)``), not on one of Swift's cooperative threads.
        let listening = try await ChildProcess.onOwnThread {
            for _ in 0..<200 where !canConnect(port) { usleep(50_000) }
            return canConnect(port)
        }
        guard listening else {
            server.stop()
            throw NSError(domain: "SMTPTestServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "aiosmtpd did not start"])
        }
        return server
    }

    private init(port: Int, directory: URL, certificateFile: URL?, process: Process) {
        self.port = port
        self.directory = directory
        self.certificateFile = certificateFile
        self.process = process
    }

    func stop() {
        // aiosmtpd does not always stop on SIGTERM; nothing of it needs a clean exit.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
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

    private static func canConnect(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
