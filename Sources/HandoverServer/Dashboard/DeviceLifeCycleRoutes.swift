import Foundation
import HandoverCore
import HandoverProtocol
import HandoverPages
import Vapor

/// A device's page on the dashboard (`/dashboard/devices/{id}`): its status and why, its history
/// (every run, escalation and return, with who acted), and, for a device out of service or
/// overdue, the form that puts it back in service with a note. The overview lists those devices
/// as the queue IT works through. "Hand over now" starts a logout run of every target app, as
/// `POST /api/v1/devices/{id}/logout-runs` does, for an operator at the device's site.
struct DeviceLifeCycleRoutes: RouteCollection {
    let auth: DashboardAuth
    let clock: ServerClock
    let notifier: RunChangeNotifier
    /// The run starts' group commit, which the API's run starts go through too.
    let commits: RunCommits
    /// Ends a retired or deleted device's keys (``DeviceRetirement``).
    let keys: KeyRevocation

    func boot(routes: RoutesBuilder) throws {
        let devices = routes.grouped("dashboard", "devices")
        devices.get(":deviceID", use: devicePage)
        devices.post(":deviceID", "back-in-service", use: backInService)
        devices.post(":deviceID", "hand-over", use: handOverNow)
        devices.post(":deviceID", "mdm-commands", ":commandID", "confirm-erase", use: confirmErase)
        devices.post(":deviceID", "retire", use: retire)
        devices.post(":deviceID", "delete", use: delete)
    }

    @Sendable func devicePage(_ request: Request) async throws -> Response {
        try await auth.signedIn(request, everySite: false) { viewer in
            try await page(request, viewer: viewer, error: nil, status: .ok)
        }
    }

    @Sendable func backInService(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let note = (try? request.content.get(String.self, at: "note")) ?? ""
            do {
                _ = try await DeviceLifeCycle.returnToService(try device.storedID, note: note, actor: actor, on: auth.databases.primary, now: clock.now())
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            if let run = device.lastRunID { await notifier.runChanged(run, on: auth.databases.primary) }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    /// Starts a hand-over now: a logout run of every target app on the device, in one transaction
    /// with the device's step and the end of its sessions, as the API's run start. The run's
    /// timeline follows; a start that cannot begin (no target app) is shown on the device's page.
    @Sendable func handOverNow(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            let run: LogoutRunView
            do {
                run = try await commits.start(.init(deviceID: try device.storedID, actor: actor), on: request.application)
            } catch let error as DomainError {
                return try await page(request, viewer: viewer, error: error.reason,
                                      status: error.kind == .conflict ? .conflict : .unprocessableEntity)
            }
            return DashboardLayout.redirect(DashboardLinks.run(run.id))
        }
    }

    /// A person confirms an erase by typing the device's name.
    @Sendable func confirmErase(_ request: Request) async throws -> Response {
        try await auth.deviceAction(request) { viewer, device, actor in
            guard let text = request.parameters.get("commandID"), let commandID = UUID(uuidString: text) else {
                throw DashboardError.notFound("No MDM command has this id.")
            }
            let typed = (try? request.content.get(String.self, at: "confirm")) ?? ""
            do {
                try await EraseConfirmation.confirm(commandID, of: try device.storedID, typedName: typed, actor: actor, on: auth.databases.primary,
                                                    now: clock.now())
            } catch let error as DomainError {
                let status: HTTPResponseStatus = switch error.kind {
                case .conflict: .conflict
                case .notFound: .notFound
                default: .unprocessableEntity
                }
                return try await page(request, viewer: viewer, error: error.reason, status: status)
            }
            return DashboardLayout.redirect("/dashboard/devices/\(try device.storedID.uuidString.lowercased())")
        }
    }

    /// The device's page; `error` is a refusal of the back-in-service, hand-over or erase form,
    /// `retirementError` one of retire or delete (shown in their section).
    func page(_ request: Request, viewer: DashboardViewer, error: String?, retirementError: String? = nil,
              status: HTTPResponseStatus) async throws -> Response {
        let device = try await auth.visibleDevice(request, viewer: viewer)
        let history = try await DeviceLifeCycle.history(of: try device.storedID, on: auth.databases.reads)
        let commands = try await MDMCommand.newest(20, ofDevice: try device.storedID, on: auth.databases.reads)
        let id = try device.storedID.uuidString.lowercased()
        let custodies = try await CustodyLedger.history(of: try device.storedID, limit: 20, on: auth.databases.reads)
        let runsByID = try await LogoutRun.byID(custodies.compactMap(\.runID), on: auth.databases.reads)
        let keys = try await APIKey.all(ofDevice: try device.storedID, on: auth.databases.reads)
        let alerts = try await DeviceAlertStore.list(visibleTo: .everySite, device: try device.storedID, limit: 10,
                                                     on: auth.databases.reads)
        return DashboardLayout.page(device.name, signedIn: viewer, status: status) {
            HTML.element("section") {
                HTML.element("p") {
                    DashboardLayout.badge(device.status)
                    if let since = device.statusChangedAt { " since "; DashboardLayout.time(since) }
                }
                if let reason = device.statusReason { HTML.element("p") { HTML.element("strong") { "Why: " }; reason } }
                HTML.element("p", ["class": "note"]) {
                    "Last completed hand-over (or back in service): "; device.lastCompletedAt.map(DashboardLayout.time) ?? "none yet"
                }
                HTML.element("p", ["class": "note"]) {
                    "Site: \(device.site ?? "none")"
                    if viewer.may(.operator, at: device.site) {
                        " · "; HTML.element("a", ["href": "/dashboard/devices/\(id)/edit"]) { "Rename, move or change identifiers" }
                    }
                }
            }
            let mayAct = viewer.may(.operator, at: device.site)  // deviceAction's need, as every form here
            if device.status.needsAttention, mayAct {
                HTML.element("section", ["id": "back-in-service"]) {
                    HTML.element("h2") { "Back in service" }
                    HTML.element("p") {
                        "Only a person decides that this device may be handed on again. Say what was checked and who decided: "
                        "the note stays in the device's history."
                    }
                    if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
                    HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/back-in-service"]) {
                        DashboardLayout.csrfField(viewer.csrfToken)
                        HTML.element("label", ["for": "note"]) { "Note (required)" }
                        HTML.element("textarea", ["id": "note", "name": "note", "rows": "3", "maxlength": String(DeviceStatus.noteLimit),
                                                  "placeholder": "Mail signed out by hand; checked by J. Ortiz, IT desk."]) { "" }
                        HTML.element("button", ["type": "submit"]) { "Put back in service" }
                    }
                }
            } else if let error {
                HTML.element("p", ["class": "error", "role": "alert"]) { error }
            }
            if mayAct, device.status != .retired {
                HTML.element("section", ["id": "hand-over"]) {
                    HTML.element("h2") { "Hand over now" }
                    HTML.element("p") {
                        "Signs whoever holds this device out of every app, as the launcher does at a shift change: a logout run of every "
                        "target app starts now, and its timeline opens."
                    }
                    HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/hand-over"]) {
                        DashboardLayout.csrfField(viewer.csrfToken)
                        HTML.element("button", ["type": "submit"]) { "Hand over now" }
                    }
                }
            }
            if !alerts.isEmpty { AlertRoutes.section(alerts, viewer: viewer, emptyText: "", back: "device") }
            CustodySection.html(holder: custodies.first { $0.checkedInAt == nil }, history: custodies, runs: runsByID)
            DeviceKeyRoutes.section(keys, deviceID: id, mayChange: mayAct && device.status != .retired, csrf: viewer.csrfToken)
            if !commands.isEmpty {
                Self.mdmSection(commands, device: device, id: id, csrf: viewer.csrfToken, error: error, mayConfirm: mayAct)
            }
            if viewer.may(Self.retirementRole, at: device.site) {
                Self.retirementSection(device, id: id, deletable: device.lastRunID == nil && custodies.isEmpty, csrf: viewer.csrfToken,
                                       error: retirementError)
            }
            HTML.element("section") {
                HTML.element("h2") { "History" }
                if history.isEmpty {
                    HTML.element("p", ["class": "note"]) { "Nothing yet: no run has started on this device." }
                } else {
                    HTML.element("div", ["class": "scroll"]) {
                        HTML.element("table", ["id": "history"]) {
                            HTML.element("tr") {
                                HTML.element("th") { "When" }; HTML.element("th") { "What" }; HTML.element("th") { "Status" }
                                HTML.element("th") { "Why" }; HTML.element("th") { "Who" }
                            }
                            for entry in history {
                                HTML.element("tr") {
                                    HTML.element("td") { DashboardLayout.time(entry.createdAt) }
                                    HTML.element("td") {
                                        let what = entry.event.rawValue.replacingOccurrences(of: "_", with: " ")
                                        if let run = entry.runID { HTML.element("a", ["href": DashboardLinks.run(run)]) { what } } else { what }
                                    }
                                    HTML.element("td") { DashboardLayout.badge(entry.fromStatus); " → "; DashboardLayout.badge(entry.toStatus) }
                                    HTML.element("td") { entry.note ?? entry.reason ?? "—" }
                                    HTML.element("td") { entry.actor }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The commands owed to the fleet's MDM for this device, and the erase confirmation.
    static func mdmSection(_ commands: [MDMCommand], device: Device, id: String, csrf: String, error: String?, mayConfirm: Bool) -> HTML {
        .element("section", ["id": "mdm"]) {
            HTML.element("h2") { "MDM" }
            HTML.element("div", ["class": "scroll"]) {
                HTML.element("table") {
                    HTML.element("tr") {
                        HTML.element("th") { "Asked" }; HTML.element("th") { "Action" }; HTML.element("th") { "Status" }
                        HTML.element("th") { "Attempts" }; HTML.element("th") { "Answer" }
                    }
                    for command in commands {
                        HTML.element("tr") {
                            HTML.element("td") { DashboardLayout.time(command.createdAt) }
                            HTML.element("td") { command.action.rawValue.replacingOccurrences(of: "_", with: " "); " by "; command.connector }
                            HTML.element("td") { DashboardLayout.badge(command) }
                            HTML.element("td") { String(command.attempts) }
                            HTML.element("td") {
                                if let code = command.lastStatusCode { "HTTP \(code): " }
                                command.lastError ?? command.answer ?? "—"
                                if command.status == .failed { " (after \(command.attempts) attempt\(command.attempts == 1 ? "" : "s"))" }
                            }
                        }
                    }
                }
            }
            for command in commands where command.status == .awaitingConfirmation && mayConfirm {
                HTML.element("div", ["class": "card", "id": "erase"]) {
                    if command.action == .returnToService {
                        HTML.element("h3") { "Erase this device and return it to service?" }
                        HTML.element("p") {
                            "Return to Service erases everything on \(device.name) and cannot be undone; the phone then joins the configured Wi-Fi, "
                            "enrolls again and comes back to its Home Screen, ready for the next person (iOS 17 and later). "
                            "Type the device's name to confirm; your name goes into its history."
                        }
                    } else {
                        HTML.element("h3") { "Erase this device?" }
                        HTML.element("p") {
                            "Erasing removes everything on \(device.name) and cannot be undone. Type the device's name to confirm; "
                            "your name goes into its history."
                        }
                    }
                    if let error { HTML.element("p", ["class": "error", "role": "alert"]) { error } }
                    HTML.element("form", ["method": "post", "action": "/dashboard/devices/\(id)/mdm-commands/\(command.id?.uuidString.lowercased() ?? "")/confirm-erase"]) {
                        DashboardLayout.csrfField(csrf)
                        HTML.element("label", ["for": "confirm"]) { "Device name" }
                        HTML.element("input", ["id": "confirm", "name": "confirm", "autocomplete": "off", "placeholder": device.name])
                        HTML.element("button", ["type": "submit", "class": "danger"]) { "Erase this device" }
                    }
                }
            }
        }
    }
}
