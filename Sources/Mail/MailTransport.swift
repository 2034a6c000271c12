import Foundation

/// Where the server's mail goes: an SMTP relay (``SMTPClient``) or, for development and the
/// demo, a folder (``MailDropFolder``).
package protocol MailTransport: Sendable {
    /// Sends `message`, or throws saying what failed.
    func send(_ message: EmailMessage) async throws
}

extension SMTPClient: MailTransport {}
