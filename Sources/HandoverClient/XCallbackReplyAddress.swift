import Foundation
import LinkCallbacks

/// Where an x-callback app's answer to a ``LogoutInitiator`` comes back, on the launcher's own
/// custom scheme:
///
/// ```
/// launcher://x-callback-url/handover-logout-reply?run=<run>&app=<app>&answer=success|error|cancel&n=<nonce>
/// ```
///
/// The app opens it as its `x-success`, `x-error` (adding `errorCode` and `errorMessage`) or
/// `x-cancel`; the launcher's ``XCallbackRouter`` hands it to the initiator (see
/// ``LogoutInitiator/takeReplies(through:)``), which checks the nonce as it checks a ULC callback.
struct XCallbackReplyAddress: Equatable {
    /// The launcher's action that carries replies.
    static let action = "handover-logout-reply"

    /// How the app answered.
    enum Answer: String { case success, error, cancel }

    var runID: String
    var appID: String
    var answer: Answer
    var nonce: String
    /// For `error`: the app's `errorCode` and `errorMessage`, when it gave them.
    var errorDetail: String?

    /// The reply URL an app opens for `answer`.
    static func url(scheme: String, runID: String, appID: String, answer: Answer, nonce: String) -> URL? {
        (try? XCallbackRequest(scheme: scheme, action: action, parameters: [
            QueryParameter(name: "run", value: runID), QueryParameter(name: "app", value: appID),
            QueryParameter(name: "answer", value: answer.rawValue), QueryParameter(name: "n", value: nonce),
        ]))?.url
    }

    /// Reads a reply request; throws ``CallbackRejection/notACallback(_:)`` naming what is missing.
    init(_ request: XCallbackRequest) throws(CallbackRejection) {
        guard request.action == Self.action else { throw .notACallback("the action is \(request.action), not \(Self.action)") }
        func single(_ name: String) throws(CallbackRejection) -> String {
            let values = request.parameters.filter { $0.name == name }.map(\.value)
            guard values.count == 1, let value = values.first ?? nil, !value.isEmpty else {
                throw .notACallback("it has no single \(name)= parameter")
            }
            return value
        }
        runID = try single("run")
        appID = try single("app")
        let answerText = try single("answer")
        guard let answer = Answer(rawValue: answerText) else {
            throw .notACallback("answer is '\(answerText)', not success, error or cancel")
        }
        self.answer = answer
        nonce = try single("n")
        let code = request.parameter("errorCode")
        let message = request.parameter("errorMessage")
        let detail: String? = switch (code, message) {
        case (nil, nil): nil
        case (let code?, nil): "errorCode \(code)"
        case (nil, let message?): message
        case (let code?, let message?): "errorCode \(code): \(message)"
        }
        errorDetail = detail.map(Self.printable)
    }

    /// The app's words, safe for a report: control characters become spaces, at most 200 characters.
    static func printable(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map {
            CharacterSet.controlCharacters.contains($0) ? " " : $0
        }))
        return cleaned.count > 200 ? String(cleaned.prefix(200)) + "…" : cleaned
    }
}
