/// Where an out-of-band operation is in its life, on the server.
///
/// ```
/// created ──dispatch──▶ dispatched ──redeem(approve)──▶ redeemed ──succeed──▶ succeeded
///    │                      │   ▲                          │
///    │                      └───┘ dispatch again           └──fail──▶ failed
///    ├─ redeem(approve) ──▶ redeemed   (a QR code or link needs no dispatch)
///    ├─ redeem(deny) ─────▶ cancelled  (also from dispatched; and redeem(report), "this was not me")
///    ├─ cancel ───────────▶ cancelled  (the initiator gave up; also from dispatched)
///    ├─ fail ─────────────▶ failed     (wrong number, push undeliverable; also from dispatched)
///    └─ expire ───────────▶ expired    (also from dispatched)
/// ```
///
/// `succeeded`, `failed`, `cancelled` and `expired` are final: nothing moves an operation out of
/// them, which is what makes a redeem single-use. A server stores the status and applies
/// ``after(_:)`` inside a conditional update (`… WHERE status = <old>`), so two instances cannot
/// both redeem one operation.
public enum OperationStatus: String, Sendable, Codable, CaseIterable, Hashable {
    case created
    case dispatched
    case redeemed
    case succeeded
    case failed
    case cancelled
    case expired

    /// Whether nothing can change the status any more.
    public var isFinal: Bool {
        switch self {
        case .created, .dispatched, .redeemed: false
        case .succeeded, .failed, .cancelled, .expired: true
        }
    }

    /// Whether the phone may still answer.
    public var acceptsAnswer: Bool {
        switch self {
        case .created, .dispatched: true
        case .redeemed, .succeeded, .failed, .cancelled, .expired: false
        }
    }

    /// The status after `event`, or an ``OperationTransitionError`` when `event` cannot happen now.
    public func after(_ event: OperationEvent) throws(OperationTransitionError) -> OperationStatus {
        switch (self, event) {
        case (.created, .dispatch), (.dispatched, .dispatch):
            return .dispatched
        case (.created, .redeem(.approve)), (.dispatched, .redeem(.approve)):
            return .redeemed
        case (.created, .redeem(.deny)), (.dispatched, .redeem(.deny)), (.created, .redeem(.report)), (.dispatched, .redeem(.report)):
            return .cancelled
        case (.created, .cancel), (.dispatched, .cancel), (.redeemed, .cancel):
            return .cancelled
        case (.created, .fail), (.dispatched, .fail), (.redeemed, .fail):
            return .failed
        case (.created, .expire), (.dispatched, .expire):
            return .expired
        case (.redeemed, .succeed):
            return .succeeded
        case (.redeemed, .dispatch), (.redeemed, .redeem), (.redeemed, .expire),
             (.created, .succeed), (.dispatched, .succeed),
             (.succeeded, _), (.failed, _), (.cancelled, _), (.expired, _):
            throw OperationTransitionError(from: self, event: event)
        }
    }
}

/// What can happen to an operation.
public enum OperationEvent: Sendable, Hashable {
    /// Sent by push, or shown as a QR code or link.
    case dispatch
    /// The phone's signed answer was verified.
    case redeem(OperationDecision)
    /// The server finished the work the approval allowed (signed the user in, stored the keys).
    case succeed
    /// Something went wrong for good: a wrong number, an undeliverable push, a failed completion.
    case fail
    /// The initiator (the web page, the relying party) withdrew the request.
    case cancel
    /// The deadline passed before an answer.
    case expire
}

/// An event that cannot happen in the operation's current status.
public struct OperationTransitionError: Error, Equatable, Sendable, CustomStringConvertible {
    public var from: OperationStatus
    public var event: OperationEvent

    public var description: String {
        if from.isFinal { return "the operation is already \(from.rawValue); \(event) cannot change it" }
        return "an operation that is \(from.rawValue) cannot take the event \(event)"
    }
}
