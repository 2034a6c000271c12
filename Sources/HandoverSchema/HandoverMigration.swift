import FluentKit

/// A migration of Handover's schema. Fluent's migration log (`_fluent_migrations`) knows each
/// migration by its `name`, by default the type's name with its module's. The migrations lived
/// in `HandoverCore` until version 37: every database since the first knows them as
/// `HandoverCore.<type>`, and keeps knowing them so (a new name would run them again, on tables
/// that exist). `UpgradeTests` opens earlier releases' databases; `SchemaMigrationsTests` pins
/// the names.
protocol HandoverMigration: AsyncMigration {}

extension HandoverMigration {
    var name: String { "HandoverCore." + String(describing: Self.self) }
}
