public import Foundation
public import TallyCore
import TallySQL
public import TallyVerify

/// A user as the server knows them.
public struct User: Sendable, Hashable {
    /// Tally's identifier.
    public let id: String
    /// The app's own identifier, when the app gave one.
    public let appUserID: String?
    /// The UUID passed to StoreKit as `appAccountToken`.
    public let appAccountToken: UUID
    /// When the user was created.
    public let createdAt: Date
}

/// What a notification did.
public enum NotificationOutcome: String, Sendable {
    /// Applied for the first time.
    case applied
    /// Seen before (same `notificationUUID`): nothing changed.
    case duplicate
    /// Recorded; it changes nothing this server tracks (a TEST, a declined refund, an older event).
    case recorded
}

/// Where purchases, balances, spends and notifications are kept.
///
/// One protocol, written once over ``SQLDatabase`` (``SQLStorage``), running on SQLite or
/// PostgreSQL; one conformance suite runs against both. Every method is one database
/// transaction; idempotency is enforced by UNIQUE constraints, so it holds across server
/// instances.
public protocol TallyStorage: Sendable {
    /// Creates a user, or returns the existing one with this app user id, with a new token
    /// (none when `tokenHash` is `nil`: an import makes users who sign in later).
    func createUser(appUserID: String?, tokenHash: String?) async throws -> (User, created: Bool, granted: [Amount])
    /// The user a token (its SHA-256) belongs to.
    func user(tokenHash: String) async throws -> User?
    /// A user by identifier.
    func user(id: String) async throws -> User?
    /// Creates an order for a product.
    func createOrder(user: User, productID: String) async throws -> Order
    /// One of the user's orders.
    func order(user: User, id: String) async throws -> Order
    /// Closes an unpaid order as failed.
    func failOrder(user: User, id: String, reason: String) async throws -> Order
    /// Records a verified transaction and grants it, exactly once.
    func deliver(_ transaction: Verified<TransactionPayload>, jws: String, presenter: User, orderID: String?) async throws -> PurchaseResponse
    /// Records an in-app purchase of a verified app receipt and grants it, exactly once under
    /// its transaction id: the same transaction delivered as a JWS, before or after, grants
    /// nothing more. The receipt names no app account token, so the purchase belongs to the
    /// owner of its original transaction, else to the presenter.
    func deliver(
        _ purchase: InAppPurchaseReceipt, from receipt: VerifiedReceipt, receiptText: String, presenter: User, orderID: String?
    ) async throws
        -> PurchaseResponse
    /// Balances, entitlements and subscriptions.
    func account(user: User) async throws -> AccountResponse
    /// Ledger history, newest first.
    func ledger(user: User, currency: String?, kind: String?, limit: Int, cursor: Int64?) async throws -> LedgerPage
    /// Spends, allowance first then oldest lot first; idempotent by key.
    func spend(user: User, request: SpendRequest) async throws -> SpendResponse
    /// Holds an amount for metered use.
    func reserve(user: User, request: ReservationRequest) async throws -> Reservation
    /// Spends what a reservation used; the rest returns.
    func commit(user: User, reservationID: String, used: Int64) async throws -> Reservation
    /// Releases a reservation unused.
    func release(user: User, reservationID: String) async throws -> Reservation
    /// Releases every reservation whose time is up; returns how many.
    func expireReservations() async throws -> Int
    /// Applies an App Store Server Notification, exactly once.
    func apply(_ notification: VerifiedNotification, jws: String) async throws -> NotificationOutcome
    /// An admin adjustment; idempotent by key.
    func adjust(userID: String, amount: Amount, reason: String, idempotencyKey: String) async throws -> AdminAdjustment
    /// A user's account for the admin.
    func adminUser(id: String) async throws -> AdminUser
    /// Store transactions for the admin, newest first.
    func adminTransactions(_ query: AdminTransactionQuery) async throws -> AdminTransactionPage
    /// Notifications for the admin, newest first; of one outcome (applied, duplicate, recorded) when given.
    func adminNotifications(outcome: String?, limit: Int, cursor: AdminCursor?) async throws -> AdminNotificationPage
    /// How far the catch-up with Apple's notification history got in `environment`; `nil` before the first.
    func catchUpMark(environment: AppStoreEnvironment) async throws -> Date?
    /// Moves that mark forward to `date` (never back: two servers catching up at once leave the later).
    func moveCatchUpMark(environment: AppStoreEnvironment, to date: Date) async throws
    /// Which of these transaction ids Tally has recorded.
    func knownTransactionIDs(_ ids: [String]) async throws -> Set<String>
    /// The original transaction ids of the user's auto-renewable subscriptions.
    func subscriptionOriginals(user: User) async throws -> [String]
    /// Takes in a transaction (and a subscription's renewal info) as Apple reports them (a
    /// renewal, an expiry, a revocation the notifications did not bring; an imported history),
    /// as a notification would: recorded once, granted to the user its token names.
    func recordFromApple(
        _ transaction: Verified<TransactionPayload>, jws: String, renewal: Verified<RenewalInfoPayload>?, renewalJWS: String?
    ) async throws
    /// Claims up to `limit` consumption requests due an answer (unanswered, received after
    /// `since`, not claimed in the last `lease` seconds), oldest first; each claim counts a try.
    func claimConsumptionRequests(since: Date, lease: TimeInterval, limit: Int) async throws -> [DueConsumptionAnswer]
    /// Closes a consumption request: `sent`, `refused` (Apple will not take it) or `expired`.
    func closeConsumptionRequest(_ notificationUUID: String, status: ConsumptionAnswerStatus, detail: String?) async throws
    /// Closes as `expired` every request still unanswered that was received before `date`.
    func expireConsumptionRequests(receivedBefore date: Date) async throws -> Int
    /// Auto-renewable subscriptions whose latest known expiry falls between `from` and `to`
    /// (renewing now, or just lapsed) and that were not asked of Apple since `checkedBefore`;
    /// at most `limit`, the earliest expiry first.
    func subscriptionsNearRenewal(from: Date, to: Date, checkedBefore: Date, limit: Int) async throws -> [String]
    /// Notes that Apple was asked about the subscription now.
    func markSubscriptionChecked(_ originalTransactionID: String) async throws
    /// The subscription and revenue figures of a window, read from the rollups.
    /// - Throws: ``StorageError`` `invalid_request` for a window of more than
    ///   ``MetricsQuery/maximumDays`` days or one that ends before it starts.
    func metrics(_ query: MetricsQuery) async throws -> MetricsReport
}
