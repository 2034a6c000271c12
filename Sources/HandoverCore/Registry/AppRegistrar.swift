import Foundation
import HandoverProtocol
import HandoverSchema
import LinkCallbacks
import UniversalLinks

/// Registers an app: the API's `POST /api/v1/apps` and the dashboard's form both come here.
package struct AppRegistrar: Sendable {
    package let clock: ServerClock
    /// The policy a target app's logout action must pass.
    package let actionPolicy: CallbackPolicy
    /// What a backend's back-channel logout URI may point at.
    package let targets: OutboundTargets
    /// The association files every app must keep valid.
    package let files: AssociationFiles
    /// Called when an app is added, so the well-known routes serve the new files (the server
    /// empties its cache of the association files).
    package let filesChanged: @Sendable () -> Void

    /// Validates and stores an app; throws
    /// a ``HandoverCore/DomainError`` naming the field that is wrong.
    package func create(_ raw: Input, on database: DatabaseHandle) async throws -> RegisteredApp {
        let input = try raw.validated(actionPolicy: actionPolicy, targets: targets)
        let store = RegistryStore(database)
        if try await store.app(named: input.name) != nil {
            throw DomainError(.conflict, code: "name_taken", reason: "name: an app called '\(input.name)' exists already.", field: "name")
        }
        let app = RegisteredApp()
        app.name = input.name
        app.role = input.role.flatMap(AppRole.init(rawValue:)) ?? .target
        app.appIDs = input.appIDs
        app.logoutAction = input.logoutAction
        app.logoutMethod = input.logoutMethod
        app.paths = input.paths ?? []
        app.allowedCallbackHosts = input.allowedCallbackHosts ?? []
        app.deadlineSeconds = input.deadlineSeconds ?? 20
        app.maxReissues = input.maxReissues ?? 2
        app.androidPackage = input.androidPackage
        app.androidFingerprints = input.androidFingerprints ?? []
        app.backchannelLogoutURI = input.backchannelLogoutURI
        app.backchannelLogoutSessionRequired = input.backchannelLogoutURI == nil ? nil : (input.backchannelLogoutSessionRequired ?? false)
        app.createdAt = clock.now()
        // Both association files must stay valid with this app in them: check before saving, so
        // the well-known routes never have an invalid file to serve.
        let others = try await store.apps()
        do {
            _ = try files.appleFile(apps: others + [app])
        } catch let error as AssociationFiles.Invalid where error.oversizedBytes != nil {
            let used = (try? files.appleFile(apps: others))??.count ?? 0
            let left = max(0, AssociationValidator.maximumSize - used)
            throw DomainError(.invalidField, code: "association_file_too_large",
                           reason: "paths: the apple-app-site-association file would grow past 128 KB (\(error.description)). "
                               + "\(left) bytes are left for new apps; use fewer or shorter paths, wildcards such as /items/*, or remove an app first.",
                           field: "paths")
        } catch let error as AssociationFiles.Invalid {
            throw DomainError.invalid("paths", "the apple-app-site-association file would be invalid: \(error.description)")
        }
        do {
            _ = try files.assetLinks(apps: others + [app])
        } catch let error as AssociationFiles.Invalid {
            throw DomainError.invalid("androidPackage", "the assetlinks.json file would be invalid: \(error.description)")
        }
        try await store.create(app)
        filesChanged()
        return app
    }

    /// What `PATCH /api/v1/apps/{id}` may change; nil leaves a field as it is.
    package struct Change: Sendable {
        package var logoutMethod: LogoutMethod?
        /// An empty action removes it.
        package var logoutAction: String?
        package var deadlineSeconds: Int?
        package var maxReissues: Int?
        /// An empty URI removes it.
        package var backchannelLogoutURI: String?
        package var backchannelLogoutSessionRequired: Bool?

        package init(logoutMethod: LogoutMethod? = nil, logoutAction: String? = nil, deadlineSeconds: Int? = nil, maxReissues: Int? = nil,
                     backchannelLogoutURI: String? = nil, backchannelLogoutSessionRequired: Bool? = nil) {
            self.logoutMethod = logoutMethod
            self.logoutAction = logoutAction
            self.deadlineSeconds = deadlineSeconds
            self.maxReissues = maxReissues
            self.backchannelLogoutURI = backchannelLogoutURI
            self.backchannelLogoutSessionRequired = backchannelLogoutSessionRequired
        }
    }

    /// Changes an app's logout settings and back-channel URI: the app as it is, with the given
    /// fields replaced, passes the same validation as a new one. An empty `backchannelLogoutURI`
    /// removes it.
    package func update(_ app: RegisteredApp, with change: Change, on database: DatabaseHandle) async throws {
        var input = Input(name: app.name, role: app.role.rawValue, appIDs: app.appIDs, logoutAction: app.logoutAction,
                          logoutMethod: app.role == .target ? (app.logoutMethod ?? .ulc) : nil, paths: app.paths,
                          allowedCallbackHosts: app.allowedCallbackHosts, deadlineSeconds: app.deadlineSeconds, maxReissues: app.maxReissues,
                          androidPackage: app.androidPackage, androidFingerprints: app.androidFingerprints,
                          backchannelLogoutURI: app.backchannelLogoutURI, backchannelLogoutSessionRequired: app.backchannelLogoutSessionRequired)
        if let method = change.logoutMethod {
            input.logoutMethod = method
            if method == .backendOnly, change.logoutAction == nil { input.logoutAction = nil }
        }
        if let action = change.logoutAction { input.logoutAction = action.isEmpty ? nil : action }
        if let deadline = change.deadlineSeconds { input.deadlineSeconds = deadline }
        if let reissues = change.maxReissues { input.maxReissues = reissues }
        if let uri = change.backchannelLogoutURI {
            input.backchannelLogoutURI = uri.isEmpty ? nil : uri
            if uri.isEmpty { input.backchannelLogoutSessionRequired = nil }
        }
        if let required = change.backchannelLogoutSessionRequired { input.backchannelLogoutSessionRequired = required }
        let valid = try input.validated(actionPolicy: actionPolicy, targets: targets)
        app.logoutAction = valid.logoutAction
        app.logoutMethod = valid.logoutMethod
        app.deadlineSeconds = valid.deadlineSeconds ?? app.deadlineSeconds
        app.maxReissues = valid.maxReissues ?? app.maxReissues
        app.backchannelLogoutURI = valid.backchannelLogoutURI
        app.backchannelLogoutSessionRequired = valid.backchannelLogoutURI == nil ? nil : (valid.backchannelLogoutSessionRequired ?? false)
        try await RegistryStore(database).save(app)
    }

    package init(clock: ServerClock, actionPolicy: CallbackPolicy, targets: OutboundTargets, files: AssociationFiles, filesChanged: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.actionPolicy = actionPolicy
        self.targets = targets
        self.files = files
        self.filesChanged = filesChanged
    }
}
