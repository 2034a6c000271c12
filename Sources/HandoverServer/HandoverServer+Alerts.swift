import Fluent
import Foundation
import HandoverCore
import Mail

extension HandoverServer {
    /// The alerts' service, mailing through the server's transport (SMTP or the mail drop).
    /// Contacts with no transport to reach them are a mistake in the configuration.
    static func deviceAlerts(_ configuration: ServerConfiguration, database: any Database, origin: PublicOrigin, clock: ServerClock,
                             mailer: (any MailTransport)?) throws -> DeviceAlerts {
        if configuration.alerts.mailsAnyone, mailer == nil {
            throw ConfigurationError(setting: "HANDOVER_ALERT_CONTACTS", problem: "names addresses, but no mail transport is configured",
                                     accepted: "HANDOVER_SMTP_HOST with its settings (or HANDOVER_MAIL_DROP_DIR while developing), or no contacts")
        }
        var send: DeviceAlerts.Send?
        if let mailer {
            send = { to, subject, body in try await mailer.send(EmailMessage(to: to, subject: subject, body: body)) }
        }
        return DeviceAlerts(database: database, settings: configuration.alerts, publicURL: { origin.url }, clock: clock, send: send)
    }

    /// One alert pass now: raises and clears what the rules decide, then mails what is owed.
    /// The background pass runs it every 30 s or more; tests call it after moving their clock.
    /// Returns how many alerts were raised.
    @discardableResult
    public func passAlerts() async throws -> Int {
        try await alerts.pass().raised.count
    }
}
