import Foundation

/// Reads the mail a Handover server wrote into its mail-drop folder (`handover serve --mail-drop`):
/// the simulated person's mailbox, from which the demo takes a sign-in link.
public struct MailDropInbox: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// The newest sign-in link mailed to `address`, waiting up to `timeout` for it to arrive.
    /// Links already returned are in `seen`, so each call takes a fresh one.
    public func signInLink(to address: String, excluding seen: Set<URL> = [], timeout: Duration = .seconds(10)) async throws -> URL {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            if let link = try newestLink(to: address, excluding: seen) { return link }
            guard ContinuousClock.now < deadline else {
                throw SimulatorError("no sign-in mail to \(address) arrived in \(folder.path) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private func newestLink(to address: String, excluding seen: Set<URL>) throws -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names.filter({ $0.hasSuffix(".eml") && !$0.hasPrefix(".") }).sorted().reversed() {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            guard let message = Self.parse(text), message.to.lowercased() == "<\(address.lowercased())>" else { continue }
            if let link = Self.link(in: message.body), !seen.contains(link) { return link }
        }
        return nil
    }

    /// Splits an RFC 5322 message into its `To` header and its body, decoding quoted-printable.
    static func parse(_ text: String) -> (to: String, body: String)? {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard let split = normalized.range(of: "\n\n") else { return nil }
        let headers = normalized[..<split.lowerBound].split(separator: "\n")
        guard let to = headers.first(where: { $0.lowercased().hasPrefix("to:") }) else { return nil }
        let quotedPrintable = headers.contains { $0.lowercased() == "content-transfer-encoding: quoted-printable" }
        let body = String(normalized[split.upperBound...])
        return (to.dropFirst(3).trimmingCharacters(in: .whitespaces), quotedPrintable ? decodeQuotedPrintable(body) : body)
    }

    /// RFC 2045 quoted-printable: `=` at a line's end joins it to the next; `=XX` is a byte.
    static func decodeQuotedPrintable(_ text: String) -> String {
        let input = Array(text.replacingOccurrences(of: "=\n", with: "").utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "="), index + 2 < input.count,
               let value = UInt8(String(decoding: input[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index += 3
            } else {
                bytes.append(input[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first `…/auth/email/verify?token=…` URL in `body`.
    static func link(in body: String) -> URL? {
        body.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "<" || $0 == ">" })
            .first { $0.hasPrefix("http") && $0.contains("/auth/email/verify?token=") }
            .flatMap { URL(string: String($0)) }
    }
}
