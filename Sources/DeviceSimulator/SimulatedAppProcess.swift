import NIOConcurrencyHelpers
import Foundation
import HandoverClient
import LinkCallbacks

/// An app's running process on the simulated phone: its memory, lost on a force-quit. The
/// phone keeps what would survive (the app's files: its journal and whether a user is signed in).
final class SimulatedAppProcess: Sendable {
    let name: String
    private let behaviour: AppBehaviour
    private let receiver: LogoutReceiver?
    private let phone: SimulatedPhone
    private let clock: any Clock<Duration>
    private let opener: PhoneURLOpener
    private let work = NIOLockedValueBox<[Task<Void, Never>]>([])

    init(name: String, behaviour: AppBehaviour, phone: SimulatedPhone, journalFolder: URL, clock: any Clock<Duration>,
         callbackAllowlist: [String]? = nil) throws {
        self.name = name
        self.behaviour = behaviour
        self.phone = phone
        self.clock = clock
        opener = PhoneURLOpener(phone: phone, app: name)
        guard behaviour.usesReceiver else {
            receiver = nil
            return
        }
        let handler = LogoutClosure { [phone, clock, behaviour, name] _ in
            try await clock.sleep(for: .seconds(1))
            switch behaviour {
            case .failing:
                throw LogoutFailure("the identity provider refused to end the session", isRetryable: false)
            case .flaky:
                if await phone.countLogoutAttempt(name) == 1 {
                    throw LogoutFailure("the session server answered 503", isRetryable: true)
                }
            case .conformant, .killed, .slow, .silent, .premature:
                break
            }
            await phone.setSignedIn(name, false)
            return .signedOut
        }
        receiver = LogoutReceiver(
            configuration: ReceiverConfiguration(policy: CallbackPolicy(
                allowedHosts: try callbackAllowlist.map { try HostAllowlist($0) }, allowsLoopbackHTTP: true)),
            journal: try CommandJournal(folder: journalFolder), opener: opener, handler: handler, clock: clock)
    }

    /// A link arrives (possibly before ``finishLaunching()``, on a cold start).
    func receive(_ url: URL) -> Bool {
        if let request = try? XCallbackRequest(parsing: url.absoluteString) { return receive(request) }
        if let receiver { return receiver.handle(url) }
        guard let ulc = try? UniversalLinkCallback(parsing: url.absoluteString) else { return false }
        let (phone, clock, opener, name) = (phone, clock, opener, name)
        let task: Task<Void, Never>
        switch behaviour {
        case .slow:
            task = Task {
                do { try await clock.sleep(for: .seconds(30)) } catch { return }
                await phone.setSignedIn(name, false)
                _ = await opener.open(ulc.success)
            }
        case .silent:
            task = Task {
                do { try await clock.sleep(for: .seconds(1)) } catch { return }
                await phone.setSignedIn(name, false)
            }
        case .premature:
            task = Task {
                _ = await opener.open(ulc.success)
                do { try await clock.sleep(for: .seconds(3)) } catch { return }
                await phone.setSignedIn(name, false)
            }
        case .conformant, .flaky, .failing, .killed:
            return false
        }
        work.withLockedValue { $0.append(task) }
        return true
    }

    /// An x-callback-url request (an app without ULC): the app logs out as its behaviour says
    /// and answers on x-success, or on x-error with `errorCode` and `errorMessage`.
    private func receive(_ request: XCallbackRequest) -> Bool {
        let (phone, clock, opener, name, behaviour) = (phone, clock, opener, name, behaviour)
        let task = Task {
            func signOut() async { await phone.setSignedIn(name, false) }
            do {
                switch behaviour {
                case .conformant, .killed:
                    try await clock.sleep(for: .seconds(1))
                    await signOut()
                    if let reply = request.successReply() { _ = await opener.open(reply) }
                case .flaky:
                    // Its first try fails inside the app; it tries again before answering.
                    _ = await phone.countLogoutAttempt(name)
                    try await clock.sleep(for: .seconds(2))
                    await signOut()
                    if let reply = request.successReply() { _ = await opener.open(reply) }
                case .failing:
                    try await clock.sleep(for: .seconds(1))
                    if let reply = request.errorReply(code: 1, message: "the identity provider refused to end the session") {
                        _ = await opener.open(reply)
                    }
                case .slow:
                    try await clock.sleep(for: .seconds(30))
                    await signOut()
                    if let reply = request.successReply() { _ = await opener.open(reply) }
                case .silent:
                    try await clock.sleep(for: .seconds(1))
                    await signOut()
                case .premature:
                    if let reply = request.successReply() { _ = await opener.open(reply) }
                    try await clock.sleep(for: .seconds(3))
                    await signOut()
                }
            } catch {
                return
            }
        }
        work.withLockedValue { $0.append(task) }
        return true
    }

    /// The app's start-up is over.
    func finishLaunching() {
        receiver?.appDidFinishLaunching()
    }

    /// Returns once the work the app's links started is over: its receiver has answered every
    /// command, or its own handling (callback and logout) has ended.
    func waitUntilIdle() async {
        if let receiver { await receiver.waitUntilIdle() }
        for task in work.withLockedValue({ $0 }) { await task.value }
    }

    /// Force-quit: everything in memory stops.
    func terminate() {
        receiver?.terminate()
        work.withLockedValue { tasks in
            tasks.forEach { $0.cancel() }
            tasks = []
        }
    }
}
