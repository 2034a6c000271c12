import Foundation
import HandoverCore

/// A plain-text email, formatted for SMTP's DATA section (RFC 5322, quoted-printable body).
package struct EmailMessage: Sendable {
    package var to: String
    package var subject: String
    package var body: String
    package var messageID: String = "<\(UUID().uuidString.lowercased())@handover>"

    package init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }

    /// The message as RFC 5322 lines: headers, a blank line, then the quoted-printable body.
    package func lines(from: String, date: Date = Date()) -> [String] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let headers = [
            "From: \(Self.headerSafe(from))",
            "To: <\(Self.headerSafe(to))>",
            "Subject: \(Self.encodedWord(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
        ]
        return headers + [""] + Self.quotedPrintable(body)
    }

    /// The DATA section: headers, blank line, body with dot-stuffing, and the final `.` line
    /// (without its trailing CRLF, which the command writer adds).
    package func dataSection(from: String, date: Date = Date()) -> String {
        let lines = lines(from: from, date: date).map { $0.hasPrefix(".") ? "." + $0 : $0 }
        return (lines + ["."]).joined(separator: "\r\n")
    }

    /// Drops CR and LF, so a value cannot start a new header.
    package static func headerSafe(_ text: String) -> String {
        // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
    }

    /// An RFC 2047 encoded word when the subject is not plain ASCII.
    package static func encodedWord(_ text: String) -> String {
        let safe = headerSafe(text)
        if safe.allSatisfy({ $0.isASCII }) { return safe }
        return "=?utf-8?B?\(Data(safe.utf8).base64EncodedString())?="
    }

    /// Quoted-printable lines of at most 76 characters (RFC 2045), soft breaks marked with `=`.
    package static func quotedPrintable(_ text: String) -> [String] {
        var result: [String] = []
        for line in text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false) {
            var encoded = ""
            for byte in line.utf8 {
                let piece: String
                if (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || byte == 32 {
                    piece = String(UnicodeScalar(byte))
                } else {
                    piece = String(format: "=%02X", byte)
                }
                if encoded.count + piece.count > 75 {
                    result.append(encoded + "=")
                    encoded = ""
                }
                encoded += piece
            }
            if encoded.hasSuffix(" ") { encoded = String(encoded.dropLast()) + "=20" }
            result.append(encoded)
        }
        return result
    }
}
