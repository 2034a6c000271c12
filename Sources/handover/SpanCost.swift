import DeviceSimulator
import Foundation

/// What a closed loop's measured span cost: the CPU of the servers the bench started, of
/// PostgreSQL's processes and of the bench itself (``ProcessCPU``), and PostgreSQL's statements
/// (``PostgresStatementCount``), read at the span's two edges.
actor SpanCost {
    private struct Reading {
        var handover: Double
        var postgres: Double?
        var generator: Double
        var statements: Int64?
    }

    private let servers: [Int32]
    private let postmaster: Int32?
    private let statements: PostgresStatementCount?
    private var start: Reading?
    private var end: Reading?

    init(servers: [Int32], postmaster: Int32?, database: String?) async {
        self.servers = servers
        self.postmaster = postmaster
        statements = if let database { await PostgresStatementCount.open(url: database) } else { nil }
    }

    func mark(_ edge: ClosedLoopFigures.SpanEdge) async {
        let reading = Reading(handover: servers.compactMap(ProcessCPU.seconds(of:)).reduce(0, +),
                              postgres: postmaster.flatMap(ProcessCPU.postgresSeconds(postmaster:)),
                              generator: ProcessCPU.seconds(of: getpid()) ?? 0,
                              statements: await statements?.total())
        switch edge {
        case .start: start = reading
        case .end: end = reading
        }
    }

    /// The span's cost; nil when the servers' CPU could not be read (not Linux, or no server started).
    func cost() async -> ClosedLoopFigures.Cost? {
        await statements?.close()
        guard let start, let end, !servers.isEmpty, ProcessCPU.seconds(of: getpid()) != nil else { return nil }
        let postgres = start.postgres.flatMap { before in end.postgres.map { $0 - before } }
        let statements = start.statements.flatMap { before in end.statements.map { Int($0 - before) } }
        return .init(handoverCPUSeconds: end.handover - start.handover, postgresCPUSeconds: postgres,
                     generatorCPUSeconds: end.generator - start.generator, statements: statements)
    }
}
