import Foundation
@testable import HandoverCore
import PropertyBased
import Testing

/// Custody's rules without a database (issue 65): one device a person (or the limit set), a
/// second tap that keeps the custody, a take-over that ends the other person's custody, and a
/// batch that comes to the same as its check-outs one by one, over random sequences.
@Suite struct CustodyRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let devices = (0..<4).map { UUID(uuidString: String(format: "00000000-0000-0000-0000-0000000000d%d", $0))! }
    static let people = (0..<4).map { CustodyRules.Holder(id: UUID(uuidString: String(format: "00000000-0000-0000-0000-0000000000a%d", $0))!,
                                                          fullName: "Person \($0)", email: "p\($0)@hospital.example") }

    /// A check-out of device `d` by person `p` (4: a person the lookup refused).
    static func checkOut(_ d: Int, _ p: Int) -> CustodyRules.CheckOut {
        .init(device: devices[d], holder: p < people.count ? people[p] : nil, method: "badge", site: "Ward 7", siteKey: "ward 7")
    }

    /// Ids in order, so that two plans can be compared.
    final class Counter: @unchecked Sendable {
        var next = 0
        func id() -> UUID {
            next += 1
            return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", next))!
        }
    }

    /// The custodies in progress after a plan is applied to `open`.
    static func applied(_ plan: CustodyRules.Plan, to open: [OpenCustody]) -> [OpenCustody] {
        open.filter { !plan.takenOver.contains($0.id) } + plan.created.filter { $0.checkedInAt == nil }
    }

    @Test func aSecondTapKeepsTheCustodyAndAThirdDeviceIsRefusedNamingTheOneHeld() {
        let ids = Counter()
        let plan = CustodyRules(limit: 1).plan([Self.checkOut(0, 0), Self.checkOut(0, 0), Self.checkOut(1, 0)], open: [], now: Self.now, newID: ids.id)
        guard case .checkedOut(let first) = plan.verdicts[0] else { Issue.record("\(plan.verdicts)"); return }
        #expect(first.deviceID == Self.devices[0] && first.userID == Self.people[0].id && first.site == "Ward 7" && first.checkedOutBy == "badge")
        #expect(plan.verdicts[1] == .holds(first))
        #expect(plan.verdicts[2] == .overLimit(Self.people[0], holding: [Self.devices[0]]))
        #expect(plan.created == [first] && plan.takenOver.isEmpty)
    }

    @Test func aDeviceHeldBySomeoneElseIsTakenOver() {
        let ids = Counter()
        let held = CustodyRules(limit: 1).plan([Self.checkOut(0, 0)], open: [], now: Self.now, newID: ids.id).created
        let plan = CustodyRules(limit: 1).plan([Self.checkOut(0, 1)], open: held, now: Self.now, newID: ids.id)
        #expect(plan.takenOver == [held[0].id], "the stored custody ends")
        guard case .checkedOut(let taken) = plan.verdicts[0] else { Issue.record("\(plan.verdicts)"); return }
        #expect(taken.userID == Self.people[1].id)
    }

    @Test func aTakeOverWithinTheBatchWritesTheFirstCustodyEnded() {
        let plan = CustodyRules(limit: 1).plan([Self.checkOut(0, 0), Self.checkOut(0, 1)], open: [], now: Self.now, newID: Counter().id)
        #expect(plan.takenOver.isEmpty, "nothing stored to end")
        #expect(plan.created.count == 2)
        #expect(plan.created[0].checkedInAt == Self.now && plan.created[0].endedWithoutRun == CustodyRules.takenOver)
        #expect(plan.created[1].checkedInAt == nil)
    }

    @Test func anUnknownPersonIsRefusedAloneAndALimitOfZeroHasNone() {
        let unlimited = CustodyRules(limit: 0).plan([Self.checkOut(0, 4), Self.checkOut(0, 0), Self.checkOut(1, 0), Self.checkOut(2, 0)],
                                                    open: [], now: Self.now, newID: Counter().id)
        #expect(unlimited.verdicts[0] == .unknownPerson)
        #expect(unlimited.created.map(\.deviceID) == Array(Self.devices[0...2]), "no limit: three devices held")
        let two = CustodyRules(limit: 2).plan([Self.checkOut(0, 0), Self.checkOut(1, 0), Self.checkOut(2, 0)], open: [], now: Self.now, newID: Counter().id)
        #expect(two.verdicts[2] == .overLimit(Self.people[0], holding: [Self.devices[0], Self.devices[1]]))
    }

    /// Over random sequences of check-outs (four devices, four people and an unknown one, a limit
    /// of 0, 1 or 2) grouped into random batches: every batch's plan keeps one custody a device
    /// and at most the limit a person, each verdict says what the custodies before it justify,
    /// and the whole comes to what the check-outs one by one come to.
    @Test func aBatchComesToWhatItsCheckOutsComeToOneByOne() async {
        let checkOuts = zip(Gen.int(in: 0...3), Gen.int(in: 0...4)).array(of: 0...24)
        await propertyCheck(count: 500, input: checkOuts, Gen.int(in: 1...6).array(of: 24), Gen.int(in: 0...2)) { sequence, sizes, limit in
            let rules = CustodyRules(limit: limit)
            let requests = sequence.map { Self.checkOut($0.0, $0.1) }

            // Batched: each batch's plan applied to what the batches before left.
            var open: [OpenCustody] = [], verdicts: [CustodyRules.Verdict] = [], start = 0
            let batchIDs = Counter()
            for size in sizes where start < requests.count {
                let batch = Array(requests[start..<min(start + size, requests.count)])
                let plan = rules.plan(batch, open: open, now: Self.now, newID: batchIDs.id)
                #expect(plan.verdicts.count == batch.count)
                #expect(Set(plan.takenOver).isSubset(of: Set(open.map(\.id))), "only custodies in progress are ended")
                for (request, verdict) in zip(batch, plan.verdicts) {
                    switch verdict {
                    case .unknownPerson: #expect(request.holder == nil)
                    case .holds(let custody): #expect(custody.deviceID == request.device && custody.userID == request.holder?.id)
                    case .overLimit(let holder, let holding):
                        #expect(limit > 0 && holding.count == limit && !holding.contains(request.device) && holder == request.holder)
                    case .checkedOut(let custody): #expect(custody.deviceID == request.device && custody.userID == request.holder?.id)
                    }
                }
                open = Self.applied(plan, to: open)
                #expect(Dictionary(grouping: open, by: \.deviceID).values.allSatisfy { $0.count == 1 }, "one custody a device")
                if limit > 0 { #expect(Dictionary(grouping: open, by: \.userID).values.allSatisfy { $0.count <= limit }) }
                verdicts += plan.verdicts
                start += batch.count
            }
            #expect(start == requests.count, "24 batches of at least one cover every sequence")

            // One by one.
            var single: [OpenCustody] = [], singleVerdicts: [CustodyRules.Verdict] = []
            let singleIDs = Counter()
            for request in requests {
                let plan = rules.plan([request], open: single, now: Self.now, newID: singleIDs.id)
                single = Self.applied(plan, to: single)
                singleVerdicts += plan.verdicts
            }
            #expect(Self.summary(verdicts) == Self.summary(singleVerdicts))
            #expect(Set(open.map { "\($0.deviceID) \($0.userID)" }) == Set(single.map { "\($0.deviceID) \($0.userID)" }))
        }
    }

    /// Verdicts without the custodies' ids (which depend on how many were made before).
    static func summary(_ verdicts: [CustodyRules.Verdict]) -> [String] {
        verdicts.map { verdict in
            switch verdict {
            case .unknownPerson: "unknown"
            case .holds(let custody): "holds \(custody.deviceID) \(custody.userID)"
            case .overLimit(let holder, let holding): "over \(holder.id) \(holding.map(\.uuidString).sorted())"
            case .checkedOut(let custody): "out \(custody.deviceID) \(custody.userID)"
            }
        }
    }
}
