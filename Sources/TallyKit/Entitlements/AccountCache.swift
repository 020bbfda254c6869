public import Foundation
public import TallyCore
import TallySQL

/// How ``PurchaseManager/account(_:)`` chooses between the cached state and a fresh one.
public enum FetchPolicy: String, Sendable, Hashable, CaseIterable {
    /// The cached state at once, however old (within the offline windows); a stale one is
    /// refreshed in the background. Fetches only when nothing is known. For app launch.
    case cachedOrFetched = "cached_or_fetched"
    /// Always fetches; fails when that fails.
    case fetchCurrent = "fetch_current"
    /// Never uses the network: the cached state; on the device, once the cache's balances are
    /// too old, the local ledger; otherwise an empty state.
    case fromCacheOnly = "from_cache_only"
    /// The cached state when it is not stale; otherwise fetches, falling back to the cached
    /// state (within the offline windows) when the fetch fails for lack of network.
    case notStaleCachedOrFetched = "not_stale_cached_or_fetched"
}

/// Balances and entitlements with where they came from and how old they are.
public struct AccountState: Sendable, Hashable {
    /// Where a state came from.
    public enum Source: String, Sendable, Hashable {
        /// Fetched just now: from the server, or read from the device's own ledger.
        case fetched
        /// The cached copy.
        case cache
        /// Nothing known: never fetched, or the cache is older than the offline windows.
        case none
    }

    /// The balances and entitlements. A cached state older than
    /// ``PurchaseManager/Configuration/offlineBalanceWindow`` has no balances (they read zero).
    /// On the device (``OnDeviceLedger``) a subscription's `willRenew` is always `nil` and
    /// `inGracePeriod` always `false`; a Tally server reports both.
    public let snapshot: AccountSnapshot
    /// When they were fetched.
    public let fetchedAt: Date?
    /// Where they came from.
    public let source: Source
    /// Whether they are older than the cache lifetime (24 hours by default).
    public let isStale: Bool
    /// The time entitlements are judged at: advancing with the device's uptime since the last
    /// look, so moving the device's clock does not change it; after a restart, the device's
    /// clock, never earlier than before.
    public let asOf: Date

    /// Whether an entitlement is active now: active when fetched and not expired since.
    public func isActive(_ entitlement: String) -> Bool {
        snapshot.entitlements.contains { $0.id == entitlement && $0.active && ($0.expiresAt.map { $0 > asOf } ?? true) }
    }

    /// The balance of a currency.
    public func balance(_ currency: String) -> Balance { snapshot.balance(currency) }

    static func empty(asOf: Date) -> AccountState {
        AccountState(snapshot: AccountSnapshot(balances: [], entitlements: []), fetchedAt: nil, source: .none, isStale: true, asOf: asOf)
    }
}

/// The last known account state on the device, per user, judged on the device's trusted time
/// (``TrustedClock``), so that moving the clock neither makes a cached state younger nor an
/// expired entitlement active again, nor locks anyone out.
struct AccountCache: Sendable {
    let database: LocalDatabase
    let scope: String

    /// The device's trusted time, which cached states are judged at.
    let clock: TrustedClock

    init(database: LocalDatabase, scope: String, uptime: @escaping @Sendable () -> TimeInterval) {
        self.database = database
        self.scope = scope
        self.clock = TrustedClock(uptime: uptime)
    }

    /// The time cached states are judged at, remembered across launches: see ``TrustedClock``.
    func effectiveNow(_ now: Date) async throws(TallyError) -> Date {
        try await clock.now(database, wall: now)
    }

    func load() async throws(TallyError) -> (snapshot: AccountSnapshot, fetchedAt: Date)? {
        let scope = scope
        return try await database.read { executor in
            guard let row = try await executor.query("SELECT * FROM account_cache WHERE scope = \(scope)").first else { return nil }
            do {
                let cached = try row.decode(Cached.self)
                let snapshot = try TallyAPI.decoder().decode(AccountSnapshot.self, from: Data(cached.snapshotJSON.utf8))
                return (snapshot, JournalTime.date(cached.fetchedAt))
            } catch {
                // A cache that cannot be read is as good as none.
                return nil
            }
        }
    }

    func store(_ snapshot: AccountSnapshot, fetchedAt: Date) async throws(TallyError) {
        let json = try PurchaseJournal.encode(snapshot)
        let scope = scope, time = JournalTime.millis(fetchedAt)
        try await database.write { executor in
            try await executor.execute(
                """
                INSERT INTO account_cache (scope, snapshot_json, fetched_at) VALUES (\(scope), \(json), \(time))
                ON CONFLICT (scope) DO UPDATE SET snapshot_json = excluded.snapshot_json, fetched_at = excluded.fetched_at
                """)
        }
    }

    /// The cached row: the snapshot as JSON and when it was fetched.
    struct Cached: SQLRowDecodable {
        enum Columns {
            static let snapshotJSON = SQLColumn("snapshot_json")
            static let fetchedAt = SQLColumn("fetched_at")
        }

        let snapshotJSON: String
        let fetchedAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            snapshotJSON = try row.text(Columns.snapshotJSON)
            fetchedAt = try row.int(Columns.fetchedAt)
        }
    }

    // MARK: - Onboarding

    /// Records that onboarding ended with a confirmed payment (once; the first one is kept).
    func completeOnboarding(transactionID: String, at date: Date) async throws(TallyError) {
        let scope = scope, time = JournalTime.millis(date)
        try await database.write { executor in
            try await executor.execute(
                "INSERT INTO onboarding (scope, completed_at, transaction_id) VALUES (\(scope), \(time), \(transactionID)) ON CONFLICT (scope) DO NOTHING")
        }
    }

    func onboardingCompleted() async throws(TallyError) -> Bool {
        let scope = scope
        return try await database.read { executor in
            try await !executor.query("SELECT 1 AS done FROM onboarding WHERE scope = \(scope)").isEmpty
        }
    }
}
