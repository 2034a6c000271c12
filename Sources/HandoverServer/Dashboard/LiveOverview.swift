import Foundation
import HandoverCore
import NIOConcurrencyHelpers

/// The dashboard overview's live updates, shared by every open dashboard of this instance.
///
/// One producer follows the fleet's changes: at most once per `interval` it renders the
/// overview's sections (one set of queries, however many dashboards are open), and sends each
/// dashboard only the sections whose HTML changed, as `replace` events (an element with its
/// `id`, which the page's script swaps in). A dashboard that connects gets every section once.
/// With no dashboard open, the producer stops.
final class LiveOverview: Sendable {
    /// One block of the overview: an element with this `id`.
    struct Section: Sendable, Equatable {
        var id: String
        var html: String
    }

    typealias Render = @Sendable () async throws -> [Section]

    private struct State {
        var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]
        var sections: [Section] = []
        var producing = false
    }

    private let state = NIOLockedValueBox(State())
    private let interval: Duration

    init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// Open dashboards on this instance.
    var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }

    /// A dashboard's stream of SSE text: every section now, then the changed ones. `changes`
    /// and `render` start the producer when none runs.
    func subscribe(changes: @escaping @Sendable () -> AsyncStream<Void>, render: @escaping Render) -> AsyncStream<String> {
        let token = UUID()
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let (cached, start) = state.withLockedValue { state -> ([Section], Bool) in
            state.subscribers[token] = continuation
            let start = !state.producing
            state.producing = true
            return (state.sections, start)
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.subscribers.removeValue(forKey: token) }
        }
        if !cached.isEmpty, !start { continuation.yield(Self.events(cached)) }
        if start { Task { await self.produce(changes: changes(), render: render) } }
        return stream
    }

    private func produce(changes: AsyncStream<Void>, render: Render) async {
        await renderAndSend(render)
        for await _ in changes {
            try? await Task.sleep(for: interval)  // changes in the meantime are sent as one
            let stop = state.withLockedValue { state -> Bool in
                guard state.subscribers.isEmpty else { return false }
                state.producing = false
                state.sections = []
                return true
            }
            if stop { return }
            await renderAndSend(render)
        }
        state.withLockedValue { $0.producing = false }
    }

    /// Renders once and sends each subscriber what changed since the last render (everything,
    /// the first time).
    private func renderAndSend(_ render: Render) async {
        guard let sections = try? await render() else { return }
        let (changed, targets) = state.withLockedValue { state -> ([Section], [AsyncStream<String>.Continuation]) in
            let previous = Dictionary(state.sections.map { ($0.id, $0.html) }, uniquingKeysWith: { first, _ in first })
            state.sections = sections
            return (sections.filter { previous[$0.id] != $0.html }, Array(state.subscribers.values))
        }
        guard !changed.isEmpty else { return }
        let text = Self.events(changed)
        for target in targets { target.yield(text) }
    }

    /// Each section as one `replace` event.
    static func events(_ sections: [Section]) -> String {
        sections.map { EventStream.format(.init(name: "replace", data: $0.html, isFinal: false)) }.joined()
    }
}

/// One ``LiveOverview`` per set of visible sites: dashboards that see the same devices share
/// one producer; a person scoped to ICU never receives another site's sections.
final class LiveOverviews: Sendable {
    private let overviews = NIOLockedValueBox<[SiteFilter: LiveOverview]>([:])
    private let interval: Duration

    init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// The overview for the dashboards that see `sites`, made on first use.
    func overview(for sites: SiteFilter) -> LiveOverview {
        overviews.withLockedValue { overviews in
            if let existing = overviews[sites] { return existing }
            let made = LiveOverview(interval: interval)
            overviews[sites] = made
            return made
        }
    }

    /// Open dashboards on this instance, whatever they see.
    var subscriberCount: Int { overviews.withLockedValue { $0.values.reduce(0) { $0 + $1.subscriberCount } } }
}
