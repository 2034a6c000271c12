import Foundation
import HandoverCore
import HandoverProtocol
import HandoverSchema

/// The shell every dashboard and tester page shares: a header with navigation, the styles
/// (readable on a phone: tables scroll sideways, forms stack) and the small live-update script;
/// and the small pieces pages are made of (badges, times, the CSRF field, live blocks).
package enum DashboardLayout {
    /// A whole page: the shell around `body`, for `viewer` (nil before sign-in: no navigation).
    /// The server answers it with ``DashboardLayout/responseHeaders`` (server side).
    package static func document(_ title: String, viewer: DashboardViewer?, @HTMLBuilder body: () -> HTML) -> String {
        HTML.join([
            .raw("<!doctype html>"),
            .element("html", ["lang": "en"]) {
                HTML.element("head") {
                    HTML.element("meta", ["charset": "utf-8"])
                    HTML.element("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
                    HTML.element("title") { "\(title) · Handover" }
                    HTML.element("style") { HTML.raw(styles) }
                }
                HTML.element("body") {
                    HTML.element("header") {
                        HTML.element("a", ["href": "/dashboard", "class": "brand"]) { "Handover" }
                        if let viewer {
                            navigation(viewer)
                            signedInBlock(viewer)
                        }
                    }
                    HTML.element("main") {
                        if let alarm = viewer?.auditAlarm {
                            HTML.element("p", ["id": "audit-alarm", "class": "alarm", "role": "alert"]) { alarm }
                        }
                        HTML.element("h1") { title }
                        body()
                    }
                    HTML.element("script") { HTML.raw(liveScript) }
                }
            },
        ]).rendered
    }

    /// The header's links: every signed-in viewer's, and an admin's.
    package static func navigation(_ viewer: DashboardViewer) -> HTML {
        .element("nav") {
            HTML.element("a", ["href": "/dashboard"]) { "Overview" }
            HTML.element("a", ["href": "/dashboard/devices"]) { "Devices" }
            HTML.element("a", ["href": "/dashboard/alerts"]) { "Alerts" }
            HTML.element("a", ["href": "/dashboard/custody"]) { "Custody" }
            HTML.element("a", ["href": "/dashboard/apps"]) { "Apps" }
            HTML.element("a", ["href": "/dashboard/scorecards"]) { "Scorecards" }
            HTML.element("a", ["href": "/dashboard/reports/usage"]) { "Usage" }
            HTML.element("a", ["href": "/dashboard/webhooks"]) { "Webhooks" }
            HTML.element("a", ["href": "/tester"]) { "Tester" }
            if viewer.may(.admin) {
                HTML.element("a", ["href": "/dashboard/people"]) { "People" }
                HTML.element("a", ["href": "/dashboard/keys"]) { "Keys" }
                HTML.element("a", ["href": "/dashboard/audit"]) { "Audit" }
            }
        }
    }

    /// The header's block for a signed-in session: who (the person, or the key), their role and
    /// sites, and the sign-out buttons.
    package static func signedInBlock(_ viewer: DashboardViewer) -> HTML {
        .element("div", ["id": "signed-in", "class": "who"]) {
            HTML.element("span", ["id": "signed-in-as"]) {
                HTML.element("strong") { viewer.name ?? "Signed in" }
                " · "
                HTML.element("span", ["id": "signed-in-role"]) { roleText(viewer.permissions) }
                if viewer.breakGlass { " · break-glass" }
            }
            HTML.element("form", ["method": "post", "action": "/dashboard/sign-out", "class": "inline"]) {
                csrfField(viewer.csrfToken)
                HTML.element("button", ["type": "submit", "class": "link"]) { "Sign out" }
            }
            if viewer.personID != nil {
                HTML.element("form", ["method": "post", "action": "/dashboard/sign-out-everywhere", "class": "inline"]) {
                    csrfField(viewer.csrfToken)
                    HTML.element("button", ["type": "submit", "class": "link"]) { "Sign out everywhere" }
                }
            }
        }
    }

    /// A session's grants in words: `admin at every site`, `operator at ICU, Ward 7; viewer at every site`.
    package static func roleText(_ permissions: Permissions) -> String {
        guard !permissions.isEmpty else { return "no role" }
        return permissions.grants.sorted { ($0.role, Permissions([$0]).text) > ($1.role, Permissions([$1]).text) }.map { grant in
            switch grant.scope {
            case .allSites: "\(grant.role.rawValue) at every site"
            case .sites(let sites): "\(grant.role.rawValue) at " + sites.map(\.text).sorted().joined(separator: ", ")
            }
        }.joined(separator: "; ")
    }

    /// The banner's sentence for the open alarms, or nil when none is open.
    package static func alarmBanner(_ alarms: [AuditAlarms.Alarm]) -> String? {
        guard let first = alarms.first else { return nil }
        let more = alarms.count > 1 ? " (and \(alarms.count - 1) more)" : ""
        let consequence = alarms.contains { $0.kind == .history }
            ? "No checkpoint of the audit log is signed until an operator acknowledges it"
            : "Checkpoints go on; the alarm stays until an operator acknowledges it"
        return "Audit log integrity alarm: \(first.finding)\(more). \(consequence) with handover audit acknowledge (docs/operations.md)."
    }

    /// The hidden field every form carries.
    package static func csrfField(_ token: String) -> HTML {
        .element("input", ["type": "hidden", "name": "csrf", "value": token])
    }

    /// A block that replaces its content with each `update` event of the SSE stream at `source`.
    package static func live(id: String, source: String, @HTMLBuilder content: () -> HTML) -> HTML {
        .element("div", ["id": id, "data-live": source, "aria-live": "polite"]) { content() }
    }

    /// A new key, shown once (every page is `no-store`), with a button that copies it.
    package static func keyShownOnce(_ key: String) -> HTML {
        .element("div", ["class": "link-box"]) {
            HTML.element("code", ["id": "new-key"]) { key }
            HTML.element("button", ["type": "button", "data-copy": "new-key"]) { "Copy" }
        }
    }

    /// How a badge is coloured.
    package enum Tone: String {
        case good, bad, muted, wait
    }

    /// A word as a coloured badge (underscores shown as spaces).
    package static func badge(_ text: String, _ tone: Tone) -> HTML {
        .element("span", ["class": "badge \(tone.rawValue)"]) { text.replacingOccurrences(of: "_", with: " ") }
    }

    package static func badge(_ state: LogoutItemState) -> HTML {
        let tone: Tone = switch state { case .succeeded: .good; case .failed, .timedOut: .bad; case .pending: .wait }
        return badge(state.rawValue, tone)
    }

    package static func badge(_ state: LogoutRunState) -> HTML {
        let tone: Tone = switch state { case .completed: .good; case .failed: .bad; case .running: .wait }
        return badge(state.rawValue, tone)
    }

    package static func badge(_ status: DeviceStatus) -> HTML {
        let tone: Tone = switch status { case .inService: .good; case .handingOver: .wait; case .outOfService, .overdue: .bad; case .retired: .muted }
        return badge(status.rawValue, tone)
    }

    package static func badge(_ status: WebhookDeliveryStatus) -> HTML {
        let tone: Tone = switch status { case .delivered: .good; case .failed: .bad; case .pending: .wait }
        return badge(status.rawValue, tone)
    }

    package static func badge(_ state: BackChannelLogoutState) -> HTML {
        let tone: Tone = switch state { case .delivered: .good; case .failed, .refused: .bad; case .pending: .wait }
        return badge(state.rawValue, tone)
    }

    /// The backend side of a run's app: its state, and "failing" while a pending token has
    /// already failed an attempt.
    package static func badge(_ backend: LogoutRunView.Item.BackendLogout) -> HTML {
        backend.isFailing ? badge("failing", .bad) : badge(backend.state)
    }

    /// An MDM command: its state, and "failing" while a pending one has already failed an attempt
    /// (an attempt is counted when it starts; a failed one leaves its status or its error).
    package static func badge(_ command: MDMCommand) -> HTML {
        if command.status == .pending, command.attempts > 0, command.lastStatusCode != nil || command.lastError != nil {
            return badge("failing", .bad)
        }
        let tone: Tone = switch command.status {
        case .sent: .good
        case .failed: .bad
        case .pending, .awaitingConfirmation: .wait
        case .dryRun, .cancelled: .muted
        }
        return badge(command.status.rawValue, tone)
    }

    package static func badge(_ status: TesterVerdictStatus) -> HTML {
        let tone: Tone = switch status { case .passed: .good; case .failed: .bad; case .running: .wait }
        return badge(status.rawValue, tone)
    }

    package static func time(_ date: Date?) -> String {
        guard let date else { return "—" }
        return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false)).replacingOccurrences(of: "T", with: " ")
    }

    private static let styles = """
        *{box-sizing:border-box}body{font-family:-apple-system,system-ui,Segoe UI,sans-serif;margin:0;color:#1d1d1f;background:#f5f5f7;line-height:1.45}
        header{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center;padding:.75rem 1rem;background:#1d1d1f;color:#fff}
        header a{color:#fff;text-decoration:none}.brand{font-weight:700;font-size:1.1rem}.who{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center;margin-left:auto;font-size:.9rem}nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:center}
        main{max-width:60rem;margin:0 auto;padding:1rem}h1{font-size:1.5rem;margin:.5rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
        section,.card{background:#fff;border-radius:10px;padding:1rem;margin:0 0 1rem;box-shadow:0 1px 2px rgba(0,0,0,.08)}
        .scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e5e5ea;vertical-align:top}
        th{font-weight:600;color:#6e6e73}code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85rem;word-break:break-all}
        pre{white-space:pre-wrap;background:#f5f5f7;padding:.75rem;border-radius:8px;max-height:24rem;overflow:auto}
        form.stack{display:grid;gap:.6rem;max-width:32rem}label{display:grid;gap:.2rem;font-weight:600;font-size:.9rem}
        input[type=text],input[type=password],input[type=url],select,textarea{font:inherit;padding:.5rem;border:1px solid #c7c7cc;border-radius:8px;width:100%}
        label.check{display:flex;gap:.5rem;align-items:center;font-weight:400}
        button{font:inherit;padding:.55rem 1rem;border:0;border-radius:8px;background:#0071e3;color:#fff;cursor:pointer}button.secondary{background:#e5e5ea;color:#1d1d1f}button.danger{background:#b3261e}
        button.link{background:none;color:#fff;padding:0;text-decoration:underline}form.inline{display:inline}
        .badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;font-weight:600}.good{background:#d1f5dc;color:#0b6b2b}
        .bad{background:#fde2e1;color:#a1170f}.wait{background:#fff2cc;color:#7a5b00}.muted{background:#e5e5ea;color:#6e6e73}
        .alarm{background:#a1170f;color:#fff;padding:.75rem 1rem;border-radius:10px;font-weight:600}.error{color:#a1170f;font-weight:600}.note{color:#6e6e73;font-size:.9rem}.verdict{font-size:1.1rem;font-weight:700}
        .qr svg{width:12rem;height:12rem;max-width:100%}.link-box{display:flex;gap:.5rem;align-items:flex-start;flex-wrap:wrap}.link-box code{flex:1 1 16rem}
        ol li{margin:.2rem 0}@media (max-width:40rem){main{padding:.5rem}th,td{padding:.3rem}}
        """

    /// Live blocks follow their SSE stream (until it says the session or key that opened it
    /// ended: `revoked`); copy buttons copy their target's text.
    private static let liveScript = """
        document.querySelectorAll('[data-live]').forEach(function(el){
          var source=new EventSource(el.getAttribute('data-live'));
          source.addEventListener('update',function(e){el.innerHTML=e.data;});
          source.addEventListener('done',function(e){el.innerHTML=e.data;source.close();});
          source.addEventListener('revoked',function(e){
            source.close();var p=document.createElement('p');p.className='error';p.setAttribute('role','alert');
            p.textContent=e.data+' ';var a=document.createElement('a');a.href='/dashboard/sign-in';a.textContent='Sign in';
            p.appendChild(a);el.prepend(p);
          });
          source.addEventListener('replace',function(e){
            var t=document.createElement('template');t.innerHTML=e.data;var n=t.content.firstElementChild;
            var old=n&&n.id&&document.getElementById(n.id);if(old)old.replaceWith(n);
          });
        });
        document.addEventListener('click',function(e){
          var target=e.target.getAttribute&&e.target.getAttribute('data-copy');
          if(!target)return;var text=document.getElementById(target).textContent;
          if(navigator.clipboard){navigator.clipboard.writeText(text);}e.target.textContent='Copied';
        });
        """
}
