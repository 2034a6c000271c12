import Testing
@testable import OutOfBand

@Suite(.timeLimit(.minutes(5))) struct OperationStatusTests {
    static let events: [OperationEvent] = [.dispatch, .redeem(.approve), .redeem(.deny), .succeed, .fail, .cancel, .expire]

    /// Every (status, event) pair, with the status it leads to or nil when refused.
    static let table: [OperationStatus: [OperationEvent: OperationStatus?]] = [
        .created: [.dispatch: .dispatched, .redeem(.approve): .redeemed, .redeem(.deny): .cancelled, .succeed: nil,
                   .fail: .failed, .cancel: .cancelled, .expire: .expired],
        .dispatched: [.dispatch: .dispatched, .redeem(.approve): .redeemed, .redeem(.deny): .cancelled, .succeed: nil,
                      .fail: .failed, .cancel: .cancelled, .expire: .expired],
        .redeemed: [.dispatch: nil, .redeem(.approve): nil, .redeem(.deny): nil, .succeed: .succeeded,
                    .fail: .failed, .cancel: .cancelled, .expire: nil],
        .succeeded: [:], .failed: [:], .cancelled: [:], .expired: [:],
    ]

    @Test(arguments: OperationStatus.allCases)
    func everyTransitionFromEveryStatusIsAsDocumented(status: OperationStatus) {
        for event in Self.events {
            let expected = Self.table[status]?[event] ?? nil
            do {
                let next = try status.after(event)
                #expect(next == expected, "\(status) + \(event) gave \(next)")
            } catch {
                #expect(expected == nil, "\(status) + \(event) was refused: \(error)")
                #expect(error.from == status)
            }
        }
    }

    @Test func finalStatusesRefuseEveryEventSoARedeemIsSingleUse() {
        for status in OperationStatus.allCases where status.isFinal {
            #expect(!status.acceptsAnswer)
            for event in Self.events { #expect(throws: OperationTransitionError.self) { try status.after(event) } }
        }
        #expect(throws: OperationTransitionError.self) { try OperationStatus.redeemed.after(.redeem(.approve)) }
    }

    @Test func onlyCreatedAndDispatchedAcceptAnAnswer() {
        #expect(OperationStatus.allCases.filter(\.acceptsAnswer) == [.created, .dispatched])
    }

    @Test func refusalSaysWhy() {
        let error = #expect(throws: OperationTransitionError.self) { try OperationStatus.expired.after(.redeem(.approve)) }
        #expect(error?.description.contains("already expired") == true)
    }
}
