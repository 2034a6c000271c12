import Foundation
import HandoverConfiguration
import HandoverCore
import Mail

extension HandoverServer {
    /// How the alerts are mailed: through the server's transport (SMTP or the mail drop), or not
    /// at all without one. Contacts with no transport to reach them are a mistake in the
    /// configuration.
    static func alertMail(_ configuration: ServerConfiguration, mailer: (any MailTransport)?) throws -> DeviceAlerts.Send? {
        guard let mailer else {
            guard !configuration.alerts.mailsAnyone else {
                throw ConfigurationError(setting: "HANDOVER_ALERT_CONTACTS", problem: "names addresses, but no mail transport is configured",
                                         accepted: "HANDOVER_SMTP_HOST with its settings (or HANDOVER_MAIL_DROP_DIR while developing), or no contacts")
            }
            return nil
        }
        return { to, subject, body in try await mailer.send(EmailMessage(to: to, subject: subject, body: body)) }
    }

    /// One alert pass now: raises and clears what the rules decide, then mails what is owed.
    /// The background pass runs it every 30 s or more; tests call it after moving their clock.
    /// Returns how many alerts were raised.
    @discardableResult
    public func passAlerts() async throws -> Int {
        try await alerts.pass().raised.count
    }
}
