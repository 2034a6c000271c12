// The one mapping between the states of the fleet and their names: on the wire (JSON), in the
// database (`status` columns) and in the SDK. Every other file uses these enums, never a string;
// a new state is added here, once, and the compiler shows every switch that must learn it.

/// The life of one app's part of a logout run (see ``LogoutItemState/on(_:)`` for the transitions).
public enum LogoutItemState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting for the app's callback; its link may be reissued after a deadline.
    case pending = "pending"
    /// The app opened its success URL.
    case succeeded = "succeeded"
    /// The app opened its error URL.
    case failed = "failed"
    /// No callback after the first link and every reissue.
    case timedOut = "timed_out"
}

/// How one app's logout ended, as a launcher's report tells it (``LogoutItemState`` without
/// `pending`).
public enum AppLogoutOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// The app opened its success URL (and, when checked, the user is signed out).
    case succeeded = "succeeded"
    /// The app opened its error URL, or claimed success while the user stayed signed in.
    case failed = "failed"
    /// No answer after the first send and every resend.
    case timedOut = "timed_out"
}

/// The state of a whole logout run, from its items (``LogoutRunState/init(items:)``).
public enum LogoutRunState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Some item is still pending.
    case running = "running"
    /// Every app signed out.
    case completed = "completed"
    /// Every item finished and some app failed or timed out.
    case failed = "failed"
}

/// How a target app is logged out on a shared device (the registry's `logoutMethod`).
public enum LogoutMethod: String, Sendable, Hashable, Codable, CaseIterable {
    /// A Universal Logout Callback: an https link the app claims, answered on the launcher's
    /// universal links.
    case ulc = "ulc"
    /// An x-callback-url on the app's custom scheme (`scheme://x-callback-url/<action>`), whose
    /// x-success, x-error and x-cancel are the run's callback URLs. iOS asks the person before it
    /// opens a custom scheme, so these apps need a tap.
    case xCallback = "x-callback"
    /// Nothing opens on the device: the app's backend ends the session when it receives the
    /// Back-Channel Logout token.
    case backendOnly = "backend-only"
}

/// Which of its two callback URLs an app opened.
public enum CallbackOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    case success = "success"
    case error = "error"
}

/// What a registered app is to a logout run.
public enum AppRole: String, Sendable, Hashable, Codable, CaseIterable {
    /// An app the launcher logs out (the default).
    case target = "target"
    /// The app that starts logouts and receives the callbacks (its association file claims them).
    case launcher = "launcher"
}

/// Who reported a callback to the server.
public enum CallbackReporter: String, Sendable, Hashable, Codable, CaseIterable {
    /// The device's launcher, which received the callback as a universal link.
    case launcher = "launcher"
    /// The server's callback page, opened in a browser when no app claimed the link.
    case browser = "browser"
}

/// Whether a shared device may be handed to the next person.
/// (See ``DeviceStatus/on(_:)`` for its life cycle.)
public enum DeviceStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Its last hand-over (if any) signed every app out.
    case inService = "in_service"
    /// A hand-over left some app signed in: the device must not be handed on until an admin
    /// puts it back in service, with a note.
    case outOfService = "out_of_service"
    /// A logout run is under way on it.
    case handingOver = "handing_over"
    /// It has not completed a hand-over within the fleet's limit (a shift and some): the server
    /// starts a run for it, which escalates like any failed run.
    case overdue = "overdue"
    /// It left the fleet for good (an admin retired it, with a note): its key is revoked, no run
    /// starts on it and it is never overdue; its history, custody and receipts stay.
    case retired = "retired"
}

/// What moved a device in its life cycle, as its history records it.
public enum DeviceHistoryEvent: String, Sendable, Hashable, Codable, CaseIterable {
    /// A logout run started on it (by its launcher, or by the server for an overdue device).
    case runStarted = "run_started"
    /// Its run signed every app out.
    case runCompleted = "run_completed"
    /// Its run ended with some app still signed in.
    case runFailed = "run_failed"
    /// An admin put it back in service, with a note.
    case backInService = "back_in_service"
    /// It went too long without completing a hand-over.
    case becameOverdue = "overdue"
    /// The fleet's MDM is owed a command for it (lock, Lost Mode or erase).
    case mdmCommandQueued = "mdm_command_queued"
    /// The MDM accepted the command (or, in a dry run, what would be sent was recorded).
    case mdmCommandSent = "mdm_command_sent"
    /// The MDM refused the command, or every attempt failed.
    case mdmCommandFailed = "mdm_command_failed"
    /// A person confirmed an erase on the dashboard.
    case eraseConfirmed = "erase_confirmed"
    /// A command still owed was cancelled, unsent: the device went back in service first.
    case mdmCommandCancelled = "mdm_command_cancelled"
    /// Its API key was revoked (a lost phone): it has none until it is given a new one.
    case keyRevoked = "key_revoked"
    /// It was given a new API key; every key it had before is revoked.
    case keyReplaced = "key_replaced"
    /// An admin retired it (with a note): it left the fleet, its key revoked.
    case retired = "retired"
    /// An alert was raised about it (overdue, not seen, in Lost Mode): its site's contacts hear of it.
    case alertRaised = "alert_raised"
    /// A person acknowledged its alert on the dashboard.
    case alertAcknowledged = "alert_acknowledged"
}

/// What the fleet's MDM is asked to do with a device that goes out of service or overdue.
public enum MDMAction: String, Sendable, Hashable, Codable, CaseIterable {
    /// Lock the screen (a message and phone number on it).
    case lock = "lock"
    /// Apple's Lost Mode: locked, with a message, a phone number and a footnote, and locatable.
    case lostMode = "lost_mode"
    /// Erase the device: only after a person confirms it on the dashboard.
    case erase = "erase"
    /// Apple's Return to Service (iOS 17 and later, Jamf Pro): erase the device, which then joins
    /// the configured Wi-Fi, enrolls again and comes back to its Home Screen ready for the next
    /// person. Like an erase, only after a person confirms it on the dashboard.
    case returnToService = "return_to_service"
    /// Take the device out of the Lost Mode that Handover put on it: sent when the device goes
    /// back in service, never chosen as a policy.
    case disableLostMode = "disable_lost_mode"

    /// Whether it acts on a device out of service (lock, Lost Mode, erase, Return to Service): it
    /// is owed no more once the device is back in service. Lifting Lost Mode is the opposite.
    public var isRemedy: Bool { self != .disableLostMode }

    /// Whether it waits for a person to confirm it on the dashboard (it erases the device).
    public var needsConfirmation: Bool { self == .erase || self == .returnToService }
}

/// Where a command to the fleet's MDM stands.
public enum MDMCommandState: String, Sendable, Hashable, Codable, CaseIterable {
    /// An erase that waits for a person to confirm it on the dashboard.
    case awaitingConfirmation = "awaiting_confirmation"
    /// Waiting for its first or next attempt (retried with back-off, or after the MDM's Retry-After).
    case pending = "pending"
    /// The MDM accepted it.
    case sent = "sent"
    /// The MDM refused it, or every attempt failed; kept with the last answer.
    case failed = "failed"
    /// The policy's dry run: what would be sent was recorded; nothing was sent.
    case dryRun = "dry_run"
    /// The device went back in service before the command was sent: it is owed no more, and
    /// was never sent.
    case cancelled = "cancelled"

    /// Whether the device still owes the MDM this command (it may yet be sent).
    public var isOwed: Bool { self == .pending || self == .awaitingConfirmation }
}

/// One webhook delivery in the outbox.
public enum WebhookDeliveryStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not yet accepted by the receiver; retried with back-off.
    case pending = "pending"
    /// The receiver answered 2xx.
    case delivered = "delivered"
    /// Every attempt failed; kept for the dashboard.
    case failed = "failed"
}

/// One OpenID Connect Back-Channel Logout token owed to a backend for an ended session.
public enum BackChannelLogoutState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting for its first or next attempt (retried with back-off).
    case pending = "pending"
    /// The backend answered 2xx: it ended the session.
    case delivered = "delivered"
    /// The backend answered 400: it could not end the session (Back-Channel Logout 1.0 section 2.8); not retried.
    case refused = "refused"
    /// Every attempt failed (no answer, or another status); kept with the last status.
    case failed = "failed"
}

/// Where a conformance test of an app (`handover tester`, `/tester`) stands.
public enum TesterVerdictStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Some check still waits for the app (or for the person to start a round).
    case running = "running"
    /// Every check passed.
    case passed = "passed"
    /// Some check failed.
    case failed = "failed"
}

/// What became of a push that carried an out-of-band operation.
public enum PushDeliveryOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// APNs accepted it for the device.
    case delivered = "delivered"
    /// APNs answered 410: the device token is dead.
    case unregistered = "unregistered"
    /// APNs refused it, or could not be reached.
    case failed = "failed"
}
