public import Foundation
public import TallyCore
import TallySQL

extension NotificationStore {
    /// How far the catch-up with Apple's notification history got in `environment`; `nil` before the first.
    public func catchUpMark(environment: AppStoreEnvironment) async throws -> Date? {
        try await read { executor, _ in
            try await executor.query("SELECT checked_until FROM apple_catch_up WHERE environment = \(environment)")
                .first.map { SQLStorage.date(try $0.int(Self.checkedUntil)) }
        }
    }

    /// Moves that mark forward to `date` (never back: two servers catching up at once leave the later).
    public func moveCatchUpMark(environment: AppStoreEnvironment, to date: Date) async throws {
        _ = try await write { executor, time in
            try await executor.execute(
                """
                INSERT INTO apple_catch_up (environment, checked_until, updated_at) VALUES (\(environment), \(SQLStorage.millis(date)), \(time))
                ON CONFLICT (environment) DO UPDATE SET checked_until = excluded.checked_until, updated_at = excluded.updated_at
                WHERE apple_catch_up.checked_until < excluded.checked_until
                """)
        }
    }

    /// How far the catch-up got, a column of `apple_catch_up`.
    static let checkedUntil = SQLColumn("checked_until")
}
