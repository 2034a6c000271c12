import Foundation
import NIOConcurrencyHelpers

/// The device of each run, remembered in memory, so that authorizing a callback ("may this
/// device's key report on this run?") reads nothing in a shift change.
///
/// A run never changes device, so a remembered answer cannot go stale: there is nothing to
/// invalidate, on this instance or another. A run started here is remembered when its start
/// commits (``LogoutRunService/createRuns(_:readingAppsOn:)``); one started elsewhere (another
/// instance, or before a restart) is read once by ``LogoutRunService/deviceOfRun(_:)`` and then
/// remembered. An unknown run is never remembered.
///
/// It is bounded: two generations of at most half the capacity each. When the newer one is
/// full it becomes the older, and the older is forgotten; a run read from the older generation
/// moves to the newer. So the runs of the current shift change stay, and the memory never holds
/// more than ``capacity`` runs (about 60 bytes each).
package final class RunDevices: Sendable {
    private struct Generations {
        var newer: [UUID: UUID] = [:]
        var older: [UUID: UUID] = [:]

        mutating func insert(run: UUID, device: UUID, generationSize: Int) {
            if newer.count >= generationSize, newer[run] == nil {
                older = newer
                newer = [:]
                newer.reserveCapacity(generationSize)
            }
            newer[run] = device
        }
    }

    /// The most runs remembered at once.
    package let capacity: Int
    private let generationSize: Int
    private let generations = NIOLockedValueBox(Generations())

    /// - Parameter capacity: the most runs remembered at once (at least 2). The default holds
    ///   the runs of two 50,000-phone shift changes in about 6 MB.
    package init(capacity: Int = 100_000) {
        self.capacity = max(2, capacity)
        self.generationSize = self.capacity / 2
    }

    /// The run's device, if remembered.
    package func device(of run: UUID) -> UUID? {
        generations.withLockedValue { generations in
            if let device = generations.newer[run] { return device }
            guard let device = generations.older.removeValue(forKey: run) else { return nil }
            generations.insert(run: run, device: device, generationSize: generationSize)
            return device
        }
    }

    /// Remembers the device of a run that exists (read, or committed).
    package func remember(run: UUID, device: UUID) {
        generations.withLockedValue { $0.insert(run: run, device: device, generationSize: generationSize) }
    }

    /// How many runs are remembered.
    package var count: Int {
        generations.withLockedValue { $0.newer.count + $0.older.count }
    }
}
