import FluentKit

/// The database schema, owned by the domain: every migration, oldest first. The server runs them
/// at start (its `SchemaMigrations` logs the run in one line); the domain's own tests run them on
/// SQLite and PostgreSQL without the server.
///
/// A new migration goes at the end; none is ever removed or reordered. Each file's documentation
/// gives its version: version 1 is two migrations (the schema and its indexes), every later
/// version one.
package enum SchemaHistory {
    /// Every migration, oldest first.
    package static var migrations: [any Migration] {
        [
            CreateSchema(), CreateIndexes(), CreateDashboardAndTester(), CreateUserSessions(),
            CreateEmailSignInAndDeviceSSO(), CreateOutOfBand(), AddWebhookSecretRotation(),
            AddPushFatigueDefenses(), AddOpenIDConnect(), AddFleetDeviceBindings(), AddEmailLinkDevice(),
            AddDeviceLifeCycle(), AddDeviceIdentifiers(), AddMDMCommands(), AddLogoutMethods(),
            AddFleetScaleIndexes(), AddRunTimeline(), AddDeviceSignOutIndexes(), AddItemLogoutMethods(),
            AddPendingItemIndexes(), AddPeople(), AddDeviceSites(), AddKeyExpiry(),
            AddCustody(), AddAuditLog(), AddAuditAppendTrigger(), AddSharedSignals(), TrimCallbackIndexes(),
            AddAuditAlarms(), AddTokenReplayCache(), AddSignalsSubjects(), AddEmailLinkTeam(), AddSiteKeys(),
            AddLocalRoles(), AddDeviceAlerts(), AddKeySites(), AddDirectory(), AddSIEMCursorLeases(),
            AddRunStartKeys(),
        ]
    }

    /// The schema version this build writes.
    package static var version: Int { migrations.count - 1 }
}
