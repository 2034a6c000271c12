import Foundation

/// The page a browser shows for an out-of-band operation's universal link (`/oob/open`) when the
/// app is not installed, or the person chose the browser: open the link on the phone with the
/// app instead. The request stays in the link's fragment, so nothing reached the server.
package enum OpenOnPhonePage {
    /// The page.
    package static let page = HTMLPage(title: "Open on your phone", heading: "Open this on your phone", paragraphs: [
        "This link carries a request for the Handover app. Open it on the phone where the app is installed, or scan the QR code on the other screen with that phone.",
        "Nothing was sent to the server: the request stays in the part of the link after #.",
    ])
}
