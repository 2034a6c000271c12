import Foundation

/// The pages of "sign in on this computer with your phone" (`/oob/sign-in`): the form that asks
/// for the user name, the page that shows the code to type on the phone with a QR code and a link
/// and then follows the request live (signing the browser in once the phone approves), and the
/// pages for a request that ended, a wrong name and too many requests. The server answers each
/// with its status, no-store and no referrer.
package enum PhoneSignInPage {
    /// The names of the operation's states the live script reacts to, as the out-of-band
    /// module spells them (the server fills them in from its `OperationStatus`).
    package struct StatusNames: Sendable {
        package var succeeded: String
        package var cancelled: String
        package var failed: String
        package var expired: String

        package init(succeeded: String, cancelled: String, failed: String, expired: String) {
            self.succeeded = succeeded
            self.cancelled = cancelled
            self.failed = failed
            self.expired = expired
        }
    }

    /// The first page: the form for the user name.
    package static let start = page(heading: "Sign in with your phone", paragraphs: [
        "Enter your user name. Your enrolled phone gets the request; approve it there by typing the code this page shows.",
    ], extra: startForm(user: ""))

    /// The form again, after a name that is empty, too long or not printable.
    package static let invalidUser = page(heading: "Sign in with your phone",
                                          paragraphs: ["Enter your user name (1 to 200 printable characters)."], extra: startForm(user: ""))

    /// Too many requests for this name: try again in `wait` seconds.
    package static func tooManyRequests(wait: Int) -> HTMLPage {
        page(heading: "Too many requests", paragraphs: ["Too many sign-in requests were sent; try again in \(wait) seconds."])
    }

    /// The request is over (it is `status`): the form again, with `user` filled in.
    package static func ended(status: String, user: String) -> HTMLPage {
        page(heading: "This request has ended", paragraphs: ["It is \(status). Start again to sign in."], extra: startForm(user: user))
    }

    /// The page that waits for the phone: the `code` to type there, the QR code (`qrSVG`, markup
    /// the server drew) and the `link` of the request, and the live status (`status` now) that the
    /// script follows for operation `id`. `pushDelivered` says a notification reached the phone.
    package static func approval(id: String, code: Int, pushDelivered: Bool, qrSVG: String, link: String, status: String,
                                 statuses: StatusNames) -> HTMLPage {
        let body = HTML.join([
            HTML.element("p") { "On your phone, approve the request and type this code:" },
            HTML.element("p", ["id": "number", "style": "font-size:3rem;font-weight:700;letter-spacing:.2rem;margin:.5rem 0"]) {
                String(code)
            },
            HTML.element("p") { pushDelivered ? "A notification was sent to your phone. No notification? Scan this code with the phone:" : "Scan this code with your phone's camera:" },
            HTML.element("div", ["class": "qr", "style": "width:16rem;max-width:100%"]) { HTML.raw(qrSVG) },
            HTML.element("p") {
                "Or, on the phone itself: "
                HTML.element("a", ["id": "link", "href": link]) { "open the request" }
            },
            HTML.element("p", ["id": "status", "data-status": status, "aria-live": "polite"]) { "Waiting for your phone…" },
            HTML.element("script") { HTML.raw(script(id: id, statuses: statuses)) },
        ])
        return page(heading: "Sign in on this computer with your phone", paragraphs: [], extra: body)
    }

    /// The form that starts a request, with `user` filled in.
    package static func startForm(user: String) -> HTML {
        HTML.element("form", ["method": "post", "action": "/oob/sign-in"]) {
            HTML.element("label", ["for": "user"]) { "User name " }
            HTML.element("input", ["id": "user", "name": "user", "value": user, "autocomplete": "username", "required": ""])
            HTML.element("button", ["type": "submit"]) { "Continue" }
        }
    }

    /// A page titled as its heading.
    package static func page(heading: String, paragraphs: [String], extra: HTML = .empty) -> HTMLPage {
        HTMLPage(title: heading, heading: heading, paragraphs: paragraphs, extra: extra)
    }

    /// Follows the operation; on approval collects the session and says so.
    package static func script(id: String, statuses: StatusNames) -> String {
        """
        (function(){
          var status=document.getElementById('status');
          var messages={\(statuses.cancelled):'You denied the request on your phone.',\(statuses.failed):'The code typed on the phone was wrong too often; start again.',\(statuses.expired):'The request expired; start again.'};
          var source=new EventSource('/oob/sign-in/\(id)/events');
          source.addEventListener('operation',function(e){
            var op=JSON.parse(e.data);status.setAttribute('data-status',op.status);
            if(op.status==='\(statuses.succeeded)'){source.close();
              fetch('/oob/sign-in/\(id)/session',{method:'POST',credentials:'same-origin'}).then(function(r){return r.json();}).then(function(a){
                status.setAttribute('data-status','signed-in');status.textContent=a.user?('Signed in as '+a.user+'.'):(a.reason||'Sign-in failed.');
                var q=document.querySelector('.qr');if(q)q.remove();
              });
            } else if(messages[op.status]){source.close();status.textContent=messages[op.status];}
          });
        })();
        """
    }
}
