import Crypto
import FluentKit
import FluentPostgresDriver
import FluentSQLiteDriver
import Foundation
import HandoverSchema
import HandoverCore
import HandoverProtocol
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Testing

/// Where the domain's tests run: SQLite always, PostgreSQL when `HANDOVER_TEST_POSTGRES_URL`
/// names a server (`bash .ci/run` starts one and sets it).
enum DomainStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["HANDOVER_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The stores available here; says once why PostgreSQL is skipped.
    static var available: [DomainStore] {
        guard postgresURL != nil else {
            skipNotice
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }

    private static let skipNotice: Void = print("SKIP HandoverCoreTests' PostgreSQL cases: HANDOVER_TEST_POSTGRES_URL is not set (bash .ci/run sets it)")
}

/// The domain on a database of its own, with the schema the domain owns (``SchemaHistory``),
/// and nothing of the server: FluentKit and a driver, no Vapor, no HTTP.
final class DomainDatabase: Sendable {
    let store: DomainStore
    let databases: Databases
    /// Every query goes through this loop, so SQLite has one connection (one writer).
    let loop: any EventLoop
    let clock: ManualServerClock
    private let folder: URL?
    /// SQLite's blocking calls run on a pool of this database's own, not on NIO's shared one:
    /// every in-process server of the suite (Vapor's default) does its SQLite work on the shared
    /// pool's two threads, and under a full parallel run three of these tests once waited on it
    /// past their two-minute limit.
    private let pool: NIOThreadPool
    /// How the database was configured, for ``withSeparateConnections(logging:_:)``.
    private let configuration: (factory: DatabaseConfigurationFactory, id: DatabaseID)

    static let logger = Logger(label: "handover.core-tests")

    var db: any Database { databases.database(logger: Self.logger, on: loop)! }
    var sql: any SQLDatabase { db as! any SQLDatabase }

    private init(store: DomainStore, databases: Databases, loop: any EventLoop, folder: URL?, pool: NIOThreadPool,
                 configuration: (factory: DatabaseConfigurationFactory, id: DatabaseID)) {
        self.configuration = configuration
        self.store = store
        self.databases = databases
        self.loop = loop
        self.folder = folder
        self.pool = pool
        self.clock = ManualServerClock()
    }

    /// A fresh database (a new SQLite file, or a new PostgreSQL database) with every migration run.
    static func open(_ store: DomainStore) async throws -> DomainDatabase {
        let group = MultiThreadedEventLoopGroup.singleton
        let pool = NIOThreadPool(numberOfThreads: 2)
        pool.start()
        let databases = Databases(threadPool: pool, on: group)
        var folder: URL?
        let configuration: (factory: DatabaseConfigurationFactory, id: DatabaseID)
        switch store {
        case .sqlite:
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("handover-core-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            folder = scratch
            configuration = (.sqlite(.file(scratch.appendingPathComponent("handover.sqlite").path)), .sqlite)
        case .postgres:
            do {
                configuration = (try .postgres(url: try await freshPostgres()), .psql)
            } catch {
                try? await pool.shutdownGracefully()
                throw error
            }
        }
        databases.use(configuration.factory, as: configuration.id)
        let database = DomainDatabase(store: store, databases: databases, loop: group.next(), folder: folder, pool: pool, configuration: configuration)
        do {
            _ = try await database.migrate()
        } catch {
            await database.close()
            throw error
        }
        return database
    }

    /// Runs the migrations not run yet; returns how many ran.
    func migrate() async throws -> Int {
        let migrations = Migrations()
        migrations.add(SchemaHistory.migrations)
        let migrator = Migrator(databases: databases, migrations: migrations, logger: Self.logger, on: loop, migrationLogLevel: .debug)
        try await migrator.setupIfNeeded().get()
        let pending = try await migrator.previewPrepareBatch().get().count
        try await migrator.prepareBatch().get()
        return pending
    }

    func close() async {
        await databases.shutdownAsync()
        try? await pool.shutdownGracefully()
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs `body` on the same database through connections of its own, made with `logger`:
    /// SQLite logs a transaction's statements to the logger its connection was made with, not to
    /// the one a query names.
    func withSeparateConnections<T>(logging logger: Logger, _ body: (any Database) async throws -> T) async throws -> T {
        let separate = Databases(threadPool: pool, on: MultiThreadedEventLoopGroup.singleton)
        separate.use(configuration.factory, as: configuration.id)
        do {
            let result = try await body(separate.database(logger: logger, on: loop)!)
            await separate.shutdownAsync()
            return result
        } catch {
            await separate.shutdownAsync()
            throw error
        }
    }

    /// Runs `body` on a fresh database of `store`, and closes it whatever happens.
    static func with<T>(_ store: DomainStore, _ body: (DomainDatabase) async throws -> T) async throws -> T {
        let database = try await open(store)
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// An empty PostgreSQL database on the test server; its URL.
    static func freshPostgres() async throws -> String {
        guard let base = DomainStore.postgresURL, let slash = base.lastIndex(of: "/") else {
            throw DomainError.invalid("HANDOVER_TEST_POSTGRES_URL", "is not set")
        }
        let name = "handover_core_\(UUID().uuidString.prefix(8).lowercased())"
        let admin = Databases(threadPool: NIOThreadPool.singleton, on: MultiThreadedEventLoopGroup.singleton)
        admin.use(try .postgres(url: base), as: .psql)
        do {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            try await (admin.database(logger: logger, on: loop) as! any SQLDatabase).raw("CREATE DATABASE \(unsafeRaw: name)").run()
            await admin.shutdownAsync()
        } catch {
            await admin.shutdownAsync()
            throw error
        }
        return String(base[...slash]) + name
    }

    // MARK: The domain's services on this database

    /// The runs service, with a callback key of its own and links on `https://handover.example.com`;
    /// no MDM, no hand-over steps and no receipts unless given.
    func runs(handOver: (any HandOverSteps)? = nil, runDevices: RunDevices? = nil,
              uncommittedCallbacks: UncommittedCallbacks? = nil) -> LogoutRunService {
        LogoutRunService(database: db, clock: clock, publicURL: URL(string: "https://handover.example.com")!,
                         nonces: CallbackNonce(key: SymmetricKey(size: .bits256)),
                         changes: RunChangeNotifier(hub: RunEventHub(), usesPostgres: store == .postgres, logger: Self.logger),
                         metrics: ServerMetrics(), mdm: nil, handOver: handOver, receipts: nil, runDevices: runDevices,
                         uncommittedCallbacks: uncommittedCallbacks, admission: nil)
    }

    /// A device in service; its id.
    func device(_ name: String = "ward-7-phone-1") async throws -> UUID {
        let device = Device(name: name, createdAt: clock.now())
        try await device.create(on: db)
        return try device.requireID()
    }

    /// A target app with a universal-link logout action; its id.
    func targetApp(_ name: String, deadlineSeconds: Int = 20, maxReissues: Int = 2) async throws -> UUID {
        let app = RegisteredApp()
        app.name = name
        app.role = .target
        app.appIDs = ["ABCDE12345.com.example.\(name)"]
        app.logoutAction = "https://\(name).example.com/logout"
        app.logoutMethod = .ulc
        app.paths = []
        app.allowedCallbackHosts = []
        app.deadlineSeconds = deadlineSeconds
        app.maxReissues = maxReissues
        app.androidFingerprints = []
        app.createdAt = clock.now()
        try await app.create(on: db)
        return try app.requireID()
    }
}
