import Hummingbird

/// The context of the pages only a signed-in operator may see: ``session`` is never missing.
///
/// Made from ``ConsoleRequestContext`` once ``ConsoleSessionMiddleware`` has looked up the
/// cookie; without a session, making it throws ``ConsoleRefusal/signInRequired``, which
/// ``ConsoleErrorPages`` answers with the sign-in page. A route in a group of this context
/// cannot run for a visitor.
struct ConsoleOperatorContext: ChildRequestContext, ConsolePageContext {
    var coreContext: CoreRequestContextStorage
    let requestID: String
    let peerAddress: String
    let maxUploadSize: Int
    let language: ConsoleText.Language
    /// The operator's session: who, with which role and CSRF token.
    let session: ConsoleSession
    /// The SHA-256 of the session cookie's value, to close the session.
    let sessionHash: String
    /// The fields of the form a change sent, once ``ConsoleFormGuard`` has checked them; empty on a GET.
    var form: [String: String] = [:]

    /// The console's context, with its operator.
    /// - Throws: ``ConsoleRefusal/signInRequired`` when no operator is signed in.
    init(context: ConsoleRequestContext) throws {
        guard let session = context.session, let sessionHash = context.sessionHash else { throw ConsoleRefusal.signInRequired }
        coreContext = context.coreContext
        requestID = context.requestID
        peerAddress = context.peerAddress
        maxUploadSize = context.maxUploadSize
        language = context.language
        self.session = session
        self.sessionHash = sessionHash
    }

    var requestDecoder: TallyRequestDecoder { TallyRequestDecoder() }
    var responseEncoder: TallyResponseEncoder { TallyResponseEncoder() }
    var signedInSession: ConsoleSession? { session }
    /// Who the audit log names: `operator:NAME`, or `secret-key`.
    var actor: String { session.actor }
    /// The session's CSRF token, for the page's forms and export links.
    var csrf: String { session.csrfToken }
}
