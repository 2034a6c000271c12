/// A shared device's life cycle, as a state machine that decides and does nothing else: the
/// server applies its answer and records it in the device's history.
///
/// ```
/// in service ──run started──▶ handing over ──run completed──▶ in service
///     │                            └────────run failed─────▶ out of service (which apps, which run)
///     └──no hand-over in time──▶ overdue ──run started──▶ handing over
/// out of service / overdue ──back in service (an admin, with a note)──▶ in service
/// any state but handing over ──retire (an admin, with a note)──▶ retired (for good)
/// ```
/// A run on a device that is out of service leaves it there: only a person returns it. No run
/// starts on a retired device, and nothing brings it back.
extension DeviceStatus {
    /// What can happen to a device.
    public enum Event: Sendable, Equatable {
        case runStarted
        case runCompleted
        case runFailed
        /// An admin returns the device to service; `note` says why that is safe.
        case backInService(note: String)
        case becameOverdue
        /// An admin retires the device: it leaves the fleet for good; `note` says why.
        case retire(note: String)

        /// The name its history records.
        public var name: DeviceHistoryEvent {
            switch self {
            case .runStarted: .runStarted
            case .runCompleted: .runCompleted
            case .runFailed: .runFailed
            case .backInService: .backInService
            case .becameOverdue: .becameOverdue
            case .retire: .retired
            }
        }
    }

    /// Why an event cannot happen.
    public enum Refusal: String, Sendable, Hashable, Codable, CaseIterable {
        /// Back in service needs a note (what was checked, who decided).
        case noteRequired = "note_required"
        /// Only a device out of service or overdue can be put back in service.
        case notOutOfService = "not_out_of_service"
        /// Only a device in service can become overdue.
        case notInService = "not_in_service"
        /// A device is not retired while a hand-over is under way on it: let the run end first.
        case handOverUnderWay = "hand_over_under_way"
        /// The device is retired: no run starts on it, and it is retired only once.
        case retired = "device_retired"
    }

    /// What the state machine decides.
    public enum Transition: Sendable, Equatable {
        /// The device is in this state now (perhaps the one it was in); the event is recorded.
        case move(DeviceStatus)
        /// The event cannot happen; nothing changes.
        case refuse(Refusal)
    }

    /// The most characters a back-in-service note may have.
    public static let noteLimit = 1000

    /// The transition `event` causes from this state.
    public func on(_ event: Event) -> Transition {
        switch (self, event) {
        case (.retired, .runStarted), (.retired, .retire): .refuse(.retired)
        case (.retired, .runCompleted), (.retired, .runFailed): .move(.retired)
        case (_, .retire(let note)) where note.allSatisfy(\.isWhitespace): .refuse(.noteRequired)
        case (.handingOver, .retire): .refuse(.handOverUnderWay)
        case (_, .retire): .move(.retired)
        case (.outOfService, .runStarted), (.outOfService, .runCompleted): .move(.outOfService)
        case (_, .runStarted): .move(.handingOver)
        case (_, .runCompleted): .move(.inService)
        case (_, .runFailed): .move(.outOfService)
        case (_, .backInService(let note)) where note.allSatisfy(\.isWhitespace): .refuse(.noteRequired)
        case (.outOfService, .backInService), (.overdue, .backInService): .move(.inService)
        case (_, .backInService): .refuse(.notOutOfService)
        case (.inService, .becameOverdue): .move(.overdue)
        case (_, .becameOverdue): .refuse(.notInService)
        }
    }

    /// Whether the device waits for a person (the dashboard's queue): out of service or overdue.
    public var needsAttention: Bool { self == .outOfService || self == .overdue }
}
