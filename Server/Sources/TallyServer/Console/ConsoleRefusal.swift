/// Why the console refused a request; ``ConsoleErrorPages`` answers each with its page.
enum ConsoleRefusal: Error {
    /// A form without this session's CSRF token, or from another origin.
    case csrf
    /// An admin's form sent by a read-only operator.
    case readOnly
    /// No such user, notification or grant.
    case notFound
    /// As many password checks are running as the server allows at once.
    case busy
    /// An export link without this session's CSRF token.
    case exportToken
    /// A page for operators, asked for without a session: the sign-in page, then back.
    case signInRequired
}
