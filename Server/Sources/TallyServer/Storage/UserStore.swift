import Foundation
public import TallyCore
import TallyLedger
import TallySQL

/// Users and their tokens: who calls, and with what grants they start.
public struct UserStore: TransactionalStore {
    let transactions: Transactions
    let catalog: TallyCatalog

    /// Creates a user with the catalog's sign-up grants, or returns the one with this app user id.
    public func createUser(appUserID: String?, tokenHash: String?) async throws -> (User, created: Bool, granted: [Amount]) {
        try await write { executor, time in
            if let appUserID,
                let user = try await executor.fetchOne(UserRow.self, "SELECT * FROM users WHERE app_user_id = \(appUserID)")?.user
            {
                if let tokenHash {
                    try await executor.execute(
                        "INSERT INTO user_tokens (token_hash, user_id, created_at) VALUES (\(tokenHash), \(user.id), \(time))")
                }
                return (user, false, [])
            }
            let user = User(id: RandomID.uuid(), appUserID: appUserID, appAccountToken: UUID(), createdAt: SQLStorage.date(time))
            let token = user.appAccountToken.uuidString.lowercased()
            try await executor.execute(
                "INSERT INTO users (id, app_user_id, app_account_token, created_at) VALUES (\(user.id), \(appUserID), \(token), \(time))")
            if let tokenHash {
                try await executor.execute(
                    "INSERT INTO user_tokens (token_hash, user_id, created_at) VALUES (\(tokenHash), \(user.id), \(time))")
            }
            let ledger = executor.ledger
            for grant in catalog.signupGrants {
                try await ledger.grant(user.id, grant.currency, amount: grant.amount, kind: .signup)
                var data = SQLStorage.creditsEvent(user: user.id, currency: grant.currency, amount: grant.amount)
                data.appUserID = appUserID
                data.source = "signup"
                try await executor.outbox.emit(.creditsGranted, data)
            }
            return (user, true, catalog.signupGrants)
        }
    }

    /// The user a token hash belongs to.
    public func user(tokenHash: String) async throws -> User? {
        try await read { executor, _ in
            try await executor.fetchOne(
                UserRow.self,
                "SELECT u.* FROM user_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = \(tokenHash)")?.user
        }
    }

    /// A user by identifier.
    public func user(id: String) async throws -> User? {
        try await read { executor, _ in
            try await executor.fetchOne(UserRow.self, "SELECT * FROM users WHERE id = \(id)")?.user
        }
    }
}

/// A row of `users`.
struct UserRow: SQLRowDecodable {
    /// The columns of `users`.
    enum Columns {
        static let id = SQLColumn("id")
        static let appUserID = SQLColumn("app_user_id")
        static let appAccountToken = SQLColumn("app_account_token")
        static let createdAt = SQLColumn("created_at")
    }

    let user: User

    init(row: SQLRow) throws(SQLDatabaseError) {
        guard let token = UUID(uuidString: try row.text(Columns.appAccountToken)) else {
            throw SQLDatabaseError(.decoding, "column app_account_token is not a UUID")
        }
        user = User(
            id: try row.text(Columns.id), appUserID: try row.optionalText(Columns.appUserID), appAccountToken: token,
            createdAt: SQLStorage.date(try row.int(Columns.createdAt)))
    }
}
