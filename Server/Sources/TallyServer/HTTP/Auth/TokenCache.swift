import NIOConcurrencyHelpers

/// Users by token hash, so that a user's calls do not read the database to authenticate.
/// Tokens never change owner, so entries never go stale; past 100,000 the cache starts over.
final class TokenCache: Sendable {
    private let users = NIOLockedValueBox<[String: User]>([:])

    /// The user whose token has this hash, when it is cached.
    func user(_ hash: String) -> User? { users.withLockedValue { $0[hash] } }

    /// Remembers the user a token hash belongs to.
    func insert(_ user: User, for hash: String) {
        users.withLockedValue { users in
            if users.count >= 100_000 { users.removeAll(keepingCapacity: true) }
            users[hash] = user
        }
    }
}
