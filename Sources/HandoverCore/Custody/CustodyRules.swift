import Foundation

/// Who may hold which device, as a value (issues 40 and 65): a batch of check-outs and the
/// custodies in progress go in, and out comes what each check-out comes to and what to write.
/// ``CustodyLedger`` loads the inputs, asks ``plan(_:open:now:newID:)`` and applies the plan.
///
/// - A check-out by someone who already holds the device keeps the custody in progress.
/// - A person holds at most ``limit`` devices at once (0: no limit); a check-out beyond it is
///   refused, naming the devices they still hold.
/// - A device held by someone else is taken over: that custody ends, marked as ended without a
///   hand-over, and the new one begins.
///
/// A batch comes to the same as its check-outs one by one, in order (`CustodyRulesTests` checks
/// it over random sequences): a shift's badge taps may be grouped in any way.
package struct CustodyRules: Sendable, Equatable {
    /// The most devices one person may hold at once; 0: no limit.
    package var limit: Int

    package init(limit: Int = 1) { self.limit = limit }

    /// The reason a custody taken over by the next person's check-out records.
    package static let takenOver = "the next person signed in before a hand-over"

    /// The person a custody names, as a check-out needs them: their user id, name and email.
    package struct Holder: Sendable, Equatable {
        package var id: UUID
        package var fullName: String?
        package var email: String?

        package init(id: UUID, fullName: String? = nil, email: String? = nil) {
            self.id = id
            self.fullName = fullName
            self.email = email
        }
    }

    /// One check-out as the rules weigh it.
    package struct CheckOut: Sendable, Equatable {
        package var device: UUID
        /// Nil: the person could not be found, and the check-out is refused for that already.
        package var holder: Holder?
        /// How the device was checked out (`Custody.CheckOut`'s raw value).
        package var method: String
        package var badgeDigest: String?
        /// The device's site and its key, copied to the custody.
        package var site: String?
        package var siteKey: String?

        package init(device: UUID, holder: Holder?, method: String, badgeDigest: String? = nil, site: String? = nil, siteKey: String? = nil) {
            self.device = device
            self.holder = holder
            self.method = method
            self.badgeDigest = badgeDigest
            self.site = site
            self.siteKey = siteKey
        }
    }

    /// What one check-out comes to.
    package enum Verdict: Sendable, Equatable {
        /// Its person was not found: the caller's refusal stands.
        case unknownPerson
        /// The person holds the device already: this custody goes on.
        case holds(OpenCustody)
        /// The person holds ``CustodyRules/limit`` other devices: refused, naming them.
        case overLimit(Holder, holding: [UUID])
        /// Checked out: this custody begins.
        case checkedOut(OpenCustody)
    }

    /// What a batch comes to, and what to write for it.
    package struct Plan: Sendable, Equatable {
        /// One for each check-out, in order.
        package var verdicts: [Verdict]
        /// Custodies in progress before the batch that it took over: end them.
        package var takenOver: [UUID]
        /// Custodies the batch began: write them (one taken over later in the same batch is
        /// written ended).
        package var created: [OpenCustody]
    }

    /// The batch's plan over `open`, the custodies in progress of its people and devices.
    package func plan(_ checkOuts: [CheckOut], open: [OpenCustody], now: Date, newID: () -> UUID = UUID.init) -> Plan {
        var open = open
        var plan = Plan(verdicts: [], takenOver: [], created: [])
        for checkOut in checkOuts {
            guard let holder = checkOut.holder else {
                plan.verdicts.append(.unknownPerson)
                continue
            }
            let held = open.filter { $0.userID == holder.id }
            if let same = held.first(where: { $0.deviceID == checkOut.device }) {
                plan.verdicts.append(.holds(same))
                continue
            }
            if limit > 0, held.count >= limit {
                plan.verdicts.append(.overLimit(holder, holding: held.map(\.deviceID)))
                continue
            }
            // Someone else still holds the device: their custody ends here, without a hand-over.
            for other in open where other.deviceID == checkOut.device {
                if let index = plan.created.firstIndex(where: { $0.id == other.id }) {
                    plan.created[index].end(at: now)
                } else {
                    plan.takenOver.append(other.id)
                }
            }
            open.removeAll { $0.deviceID == checkOut.device }
            let custody = OpenCustody(id: newID(), deviceID: checkOut.device, userID: holder.id, personName: holder.fullName,
                                      personEmail: holder.email, site: checkOut.site, siteKey: checkOut.siteKey,
                                      checkedOutBy: checkOut.method, checkedOutAt: now, badgeDigest: checkOut.badgeDigest)
            open.append(custody)
            plan.created.append(custody)
            plan.verdicts.append(.checkedOut(custody))
        }
        return plan
    }
}
