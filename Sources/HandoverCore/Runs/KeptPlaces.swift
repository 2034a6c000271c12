/// The places in line that admission control promised to starts it shed, by the start's key (a
/// run start's `Idempotency-Key`, which the SDK sends again with the same start): a start that
/// comes back with its key at its moment is taken ahead of new ones, instead of being sent to the
/// back of the line again. A pure value, in ``AdmissionControl``.
///
/// Moments are promised in order, so the places are kept in that order and forgotten from the
/// front: a place not claimed ``unclaimedFor`` after its moment (the phone gave up, or asked
/// another instance) is dropped, and no more than ``capacity`` are kept (a start shed beyond that
/// is told its wait all the same, and comes back as a new one).
package struct KeptPlaces: Sendable, Equatable {
    /// The most places kept.
    package let capacity: Int
    /// How long after its moment an unclaimed place is kept.
    package let unclaimedFor: Duration
    private var moments: [String: Duration] = [:]
    /// The places in the order promised; a key may have been claimed since.
    private var order: [(key: String, moment: Duration)] = []
    private var head = 0

    package init(capacity: Int = 100_000, unclaimedFor: Duration = .seconds(60)) {
        self.capacity = max(0, capacity)
        self.unclaimedFor = unclaimedFor
    }

    /// Places kept now.
    package var count: Int { moments.count }

    /// The moment kept for `key`, if any.
    package func moment(of key: String) -> Duration? { moments[key] }

    /// Keeps `moment` for `key` (a later promise replaces an earlier one), unless full.
    package mutating func keep(_ key: String, at moment: Duration) {
        guard moments[key] != nil || moments.count < capacity else { return }
        moments[key] = moment
        order.append((key, moment))
    }

    /// The start with `key` came back and was taken: its place is given up.
    package mutating func claim(_ key: String) {
        moments[key] = nil
    }

    /// Drops the places whose moment passed more than ``unclaimedFor`` before `now`.
    package mutating func forget(before now: Duration) {
        while head < order.count, order[head].moment + unclaimedFor < now {
            let (key, moment) = order[head]
            if moments[key] == moment { moments[key] = nil }
            head += 1
        }
        if head > 1024, head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    package static func == (lhs: KeptPlaces, rhs: KeptPlaces) -> Bool {
        lhs.capacity == rhs.capacity && lhs.unclaimedFor == rhs.unclaimedFor && lhs.moments == rhs.moments
    }
}
