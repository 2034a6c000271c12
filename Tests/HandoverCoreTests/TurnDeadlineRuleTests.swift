import Foundation
@testable import HandoverCore
import HandoverProtocol
import PropertyBased
import Testing

/// The turn deadline's rule over a run's items as values, without a database (issue 65). The
/// SQL form and the scheduler are `TurnDeadlineTests`'.
@Suite struct TurnDeadlineRuleTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let run = UUID()

    /// Item `position`, issued `issued` s after the start with a link of `lifetime` s.
    static func item(_ position: Int, issued: TimeInterval = 0, lifetime: TimeInterval = 20, attempts: Int = 1, answered: TimeInterval? = nil,
                     by reporter: CallbackReporter? = .launcher, method: LogoutMethod? = .ulc) -> LogoutRunRows.Item {
        let view = LogoutRunView.Item(id: UUID(), appID: UUID(), app: "app \(position)", position: position,
                                      status: answered == nil ? .pending : .succeeded, attempts: attempts,
                                      issuedAt: start.addingTimeInterval(issued), deadlineAt: start.addingTimeInterval(issued + lifetime),
                                      finishedAt: answered.map { start.addingTimeInterval($0) }, reportedBy: answered == nil ? nil : reporter)
        return LogoutRunRows.Item(view: view, runID: run, version: 0, method: method)
    }

    static func deadline(_ item: LogoutRunRows.Item, _ items: [LogoutRunRows.Item]) -> TimeInterval {
        TurnDeadline.deadline(of: item, in: items).timeIntervalSince(start)
    }

    @Test func aFirstLinkCountsFromTheLastAnswerBeforeIt() {
        var items = [Self.item(0, answered: 15), Self.item(1), Self.item(2)]
        #expect(Self.deadline(items[1], items) == 35 && Self.deadline(items[2], items) == 35, "both turns began at the mail's answer")
        items[1] = Self.item(1, answered: 30)
        #expect(Self.deadline(items[2], items) == 50)
        #expect(Self.deadline(items[0], items) == 20, "the first app's turn is the run's start")
    }

    @Test func resendsBackendOnlyAppsAndLaterAnswersKeepTheirOwnDeadline() {
        let answered = Self.item(0, answered: 15)
        #expect(Self.deadline(Self.item(1, issued: 21, attempts: 2), [answered]) == 41, "a resend counts from its issue")
        #expect(Self.deadline(Self.item(1, method: .backendOnly), [answered]) == 20, "no launcher opens a backend-only app")
        #expect(Self.deadline(Self.item(1), [Self.item(0, attempts: 2, answered: 15)]) == 20, "an answer to a resend is not a turn")
        #expect(Self.deadline(Self.item(1), [Self.item(0, answered: 15, by: nil)]) == 20, "an item finished by no report is not a turn")
        #expect(Self.deadline(Self.item(0), [Self.item(1, answered: 15)]) == 20, "only apps before it")
        #expect(Self.deadline(Self.item(1, answered: 12), [Self.item(0, answered: 15)]) == 20, "answers after it finished do not count")
        #expect(Self.deadline(Self.item(1, issued: 16), [Self.item(0, answered: 15)]) == 36, "a turn before the link's issue does not move it")
    }

    /// Over random runs: a deadline is never earlier than its link's own, is its link's own
    /// unless an earlier app answered its first link after this one was issued, and otherwise
    /// keeps the link's lifetime from the last such answer.
    @Test func aTurnNeverShortensALink() async {
        let answers = Gen.int(in: -1...60).array(of: 1...7)
        await propertyCheck(count: 500, input: answers, Gen.int(in: 0...6)) { answeredAt, index in
            let items = answeredAt.enumerated().map { position, at in Self.item(position, answered: at < 0 ? nil : TimeInterval(at)) }
            let item = items[index % items.count]
            let deadline = Self.deadline(item, items)
            #expect(deadline >= 20)
            let end = item.view.finishedAt.map { $0.timeIntervalSince(Self.start) } ?? .infinity
            let turn = items.filter { $0.view.position < item.view.position }
                .compactMap { $0.view.finishedAt?.timeIntervalSince(Self.start) }.filter { $0 <= end }.max()
            #expect(deadline == ((turn ?? 0) > 0 ? turn! + 20 : 20), "\(answeredAt) item \(item.view.position)")
        }
    }
}
