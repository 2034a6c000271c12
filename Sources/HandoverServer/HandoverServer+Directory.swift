import HandoverConfiguration
import HandoverCore
import Vapor

extension HandoverServer {
    /// `/scim/v2`, over the directory's provisioning (issue 67) when a SCIM token is configured.
    static func registerDirectory(on application: Application, configuration: ServerConfiguration, throttle: Throttle,
                                  origin: PublicOrigin, clock: ServerClock, databases: ServerDatabases, handOver: PersonHandOver) throws {
        let provisioning = configuration.directory.tokens.isEmpty ? nil
            : DirectoryProvisioning(database: databases.primary, handOver: handOver, roleMap: configuration.adminSignIn?.roleMap,
                                    badgeAttribute: configuration.directory.badgeAttribute, now: { clock.now() })
        try application.register(collection: SCIMRoutes(provisioning: provisioning, tokens: configuration.directory.tokens,
                                                        throttle: throttle, origin: origin))
    }
}
