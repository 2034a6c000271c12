import Foundation
@testable import HandoverCore
import HandoverProtocol
import PropertyBased
import Testing

/// When a device's alert is raised and when it is over (``AlertRules``), as a value: no database,
/// no clock. One open alert per device and cause, so a person hears of each episode once.
@Suite struct AlertRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 86_400

    static func device(_ status: DeviceStatus = .inService, seen: TimeInterval = 0, lost: Bool = false, id: UUID = UUID()) -> AlertObservation {
        AlertObservation(device: id, name: "ICU-07", site: "ICU", status: status, lastSeen: now.addingTimeInterval(-seen), inLostMode: lost)
    }

    @Test func eachCauseIsRaisedOnceWhileItLasts() {
        let overdue = Self.device(.overdue), unseen = Self.device(seen: 4 * Self.day), lost = Self.device(.outOfService, lost: true)
        let quiet = Self.device(seen: Self.day)
        let changes = AlertRules.decide(observed: [overdue, unseen, lost, quiet], open: [], notSeenAfter: 3 * Self.day, now: Self.now)
        #expect(Set(changes.raise.map { "\($0.device == overdue.device ? "overdue" : $0.device == unseen.device ? "unseen" : "lost"):\($0.cause.rawValue)" })
                == ["overdue:overdue", "unseen:not_seen", "lost:lost_mode"])
        #expect(changes.clear.isEmpty)
        #expect(changes.raise.first { $0.cause == .notSeen }?.detail.contains("alerted after 72 h") == true)
        // Open (acknowledged or not): nothing new while each lasts.
        let open = changes.raise.map { OpenAlert(id: UUID(), device: $0.device, cause: $0.cause) }
        #expect(AlertRules.decide(observed: [overdue, unseen, lost, quiet], open: open, notSeenAfter: 3 * Self.day, now: Self.now).isEmpty)
    }

    @Test func anAlertIsOverWhenItsCauseIs() {
        let id = UUID()
        let open = [OpenAlert(id: UUID(), device: id, cause: .overdue), OpenAlert(id: UUID(), device: id, cause: .notSeen),
                    OpenAlert(id: UUID(), device: id, cause: .lostMode)]
        // Its run started and failed: still overdue, still lost, still unseen.
        var device = Self.device(.outOfService, seen: 4 * Self.day, lost: true, id: id)
        #expect(AlertRules.decide(observed: [device], open: open, notSeenAfter: 3 * Self.day, now: Self.now).isEmpty)
        // Back in service, its key used again: every one is over.
        device = Self.device(.inService, seen: 60, lost: true, id: id)
        #expect(Set(AlertRules.decide(observed: [device], open: open, notSeenAfter: 3 * Self.day, now: Self.now).clear) == Set(open.map(\.id)))
        // Retired: every one is over, and nothing new is raised.
        device = Self.device(.retired, seen: 400 * Self.day, lost: true, id: id)
        #expect(Set(AlertRules.decide(observed: [device], open: open, notSeenAfter: 3 * Self.day, now: Self.now).clear) == Set(open.map(\.id)))
        #expect(AlertRules.decide(observed: [device], open: [], notSeenAfter: 3 * Self.day, now: Self.now).isEmpty)
        // A device gone (deleted): its alerts are over too.
        #expect(AlertRules.decide(observed: [], open: open, notSeenAfter: nil, now: Self.now).clear.count == 3)
    }

    @Test func withoutANotSeenPeriodNoDeviceIsUnseen() {
        let changes = AlertRules.decide(observed: [Self.device(seen: 400 * Self.day)], open: [], notSeenAfter: nil, now: Self.now)
        #expect(changes.isEmpty)
    }

    /// Any fleet and any open alerts: after the changes are applied, deciding again changes
    /// nothing; no device has two open alerts of one cause; every alert raised holds and every
    /// alert cleared does not.
    @Test func decidingAgainChangesNothingAndOneAlertIsOpenPerDeviceAndCause() async {
        let statuses = Gen<Int>.int(in: 0..<DeviceStatus.allCases.count).array(of: 1...12)
        let ages = Gen<Int>.int(in: 0...10).array(of: 12...12)
        let opens = Gen<Int>.int(in: 0...35).array(of: 0...10)
        await propertyCheck(count: 300, input: statuses, ages, opens) { statuses, ages, opens in
            let ids = statuses.indices.map { _ in UUID() }
            let observed = statuses.enumerated().map { index, status in
                Self.device(DeviceStatus.allCases[status], seen: Double(ages[index]) * Self.day, lost: ages[index] % 3 == 0, id: ids[index])
            }
            var open: [OpenAlert] = []
            for pick in opens {
                let device = pick / 3 < ids.count ? ids[pick / 3] : UUID()  // some of devices gone
                let cause = DeviceAlertCause.allCases[pick % 3]
                if !open.contains(where: { $0.device == device && $0.cause == cause }) { open.append(OpenAlert(id: UUID(), device: device, cause: cause)) }
            }
            let changes = AlertRules.decide(observed: observed, open: open, notSeenAfter: 3 * Self.day, now: Self.now)
            let byDevice = Dictionary(observed.map { ($0.device, $0) }) { first, _ in first }
            for raise in changes.raise {
                #expect(byDevice[raise.device].map { AlertRules.holds(raise.cause, $0, notSeenAfter: 3 * Self.day, now: Self.now) } == true)
            }
            for alert in open where changes.clear.contains(alert.id) {
                #expect(byDevice[alert.device].map { AlertRules.holds(alert.cause, $0, notSeenAfter: 3 * Self.day, now: Self.now) } != true)
            }
            let after = open.filter { !changes.clear.contains($0.id) } + changes.raise.map { OpenAlert(id: UUID(), device: $0.device, cause: $0.cause) }
            #expect(Set(after.map { "\($0.device)\($0.cause)" }).count == after.count, "one open alert per device and cause")
            #expect(AlertRules.decide(observed: observed, open: after, notSeenAfter: 3 * Self.day, now: Self.now).isEmpty)
        }
    }

    @Test func contactsAreReadBySiteAndForEverySite() throws {
        var settings = AlertSettings()
        try settings.parseContacts("IT@hospital.org, ICU=icu-charge@hospital.org icu-lead@hospital.org,Ward 7=w7+alerts@hospital.org")
        #expect(settings.contacts(site: "icu") == ["icu-charge@hospital.org", "icu-lead@hospital.org", "it@hospital.org"])
        #expect(settings.contacts(site: "WARD 7") == ["w7+alerts@hospital.org", "it@hospital.org"])
        #expect(settings.contacts(site: nil) == ["it@hospital.org"])
        for (bad, problem) in [("ICU=", "names no address"), ("ICU=charge", "'charge' is not an email address"), ("a,b@x=y", "'a' is not an email address"),
                               ("IC+U=a@b.org", "has '+'")] {
            var fresh = AlertSettings()
            #expect(throws: AlertSettingsError.self, "\(bad)") { try fresh.parseContacts(bad) }
            do { try fresh.parseContacts(bad) } catch { #expect(error.description.contains(problem), "\(bad): \(error)") }
        }
    }
}
