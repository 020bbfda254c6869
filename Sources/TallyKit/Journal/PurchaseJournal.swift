public import Foundation
public import TallyCore
import TallySQL

/// The device's durable record of every paid transaction from the moment the store hands it
/// over until it is delivered and finished, of every purchase prepared but not yet paid,
/// of every commit whose answer did not arrive, and of every hold of work under way.
///
/// A transaction is journaled before delivery starts and its entry says how far it got, so
/// that after a crash at any step ``PurchaseManager/start()`` takes it up again.
public struct PurchaseJournal: Sendable {
    /// How far a transaction got.
    public enum State: String, Sendable, Hashable, Codable {
        /// Journaled; not delivered yet.
        case received
        /// Credited at its destination; the store has not been told to finish it yet.
        case delivered
        /// Delivered and finished: nothing more to do.
        case finished
        /// Delivery refused it for good (it did not verify, say); tried again at a later start
        /// (``PurchaseManager/Configuration/rejectedRetryInterval``), a restore, or
        /// ``PurchaseManager/retryUndelivered()``.
        case rejected
    }

    /// One journaled transaction.
    public struct Entry: Sendable, Hashable {
        /// The transaction identifier, with `:revoked` for the delivery of a refund.
        public let eventID: String
        /// The transaction.
        public let transaction: StoreTransaction
        /// The server's order the purchase was prepared with, if known.
        public let orderID: String?
        /// How far it got.
        public let state: State
        /// Delivery attempts that failed.
        public let attempts: Int
        /// The last failure, as a code.
        public let lastError: String?
        /// What the delivery answered, once delivered.
        public let receipt: DeliveryReceipt?
        /// When the entry last changed (its last failed attempt, for a refused one).
        public let updatedAt: Date
    }

    let database: LocalDatabase

    /// The journal in `database`, whose schema has its tables.
    /// - Parameter database: the device's database.
    public init(database: LocalDatabase) {
        self.database = database
    }

    static func eventID(_ transaction: StoreTransaction) -> String {
        transaction.isRevoked ? transaction.id + ":revoked" : transaction.id
    }

    /// Journals a transaction (durably) unless it is there already; returns its entry.
    func record(_ transaction: StoreTransaction, orderID: String?, now: Date) async throws(TallyError) -> Entry {
        let eventID = Self.eventID(transaction)
        let time = Self.millis(now)
        return try await database.write { executor in
            try await executor.execute(
                """
                INSERT INTO journal (event_id, transaction_id, product_id, evidence_kind, evidence, order_id, state, received_at, updated_at)
                VALUES (\(eventID), \(transaction.id), \(transaction.productID), \(transaction.evidence.kind), \(transaction.evidence.text),
                    \(orderID), \(State.received), \(time), \(time))
                ON CONFLICT (event_id) DO NOTHING
                """)
            guard let row = try await executor.fetchOne(EntryRow.self, "SELECT * FROM journal WHERE event_id = \(eventID)") else {
                throw TallyError(.storageFailed, "the journal lost \(eventID)")
            }
            return try row.entry()
        }
    }

    /// The entry of a transaction event, if journaled.
    func entry(_ eventID: String) async throws(TallyError) -> Entry? {
        try await database.read { executor in
            try await executor.fetchOne(EntryRow.self, "SELECT * FROM journal WHERE event_id = \(eventID)")?.entry()
        }
    }

    /// Entries not finished, oldest first.
    public func unfinished() async throws(TallyError) -> [Entry] {
        try await database.read { executor in
            try await executor.fetchAll(EntryRow.self, "SELECT * FROM journal WHERE state <> \(State.finished) ORDER BY received_at, event_id")
                .map { try $0.entry() }
        }
    }

    /// Every entry, oldest first.
    public func all() async throws(TallyError) -> [Entry] {
        try await database.read { executor in
            try await executor.fetchAll(EntryRow.self, "SELECT * FROM journal ORDER BY received_at, event_id").map { try $0.entry() }
        }
    }

    func markDelivered(_ eventID: String, receipt: DeliveryReceipt, now: Date) async throws(TallyError) {
        let json = try Self.encode(receipt)
        try await update(
            eventID, "state = \(State.delivered), receipt_json = \(json), last_error = NULL", from: [.received, .rejected], now: now)
    }

    func markFinished(_ eventID: String, now: Date) async throws(TallyError) {
        try await update(eventID, "state = \(State.finished)", from: [.delivered], now: now)
    }

    func markFailed(_ eventID: String, error: TallyError, rejected: Bool, now: Date) async throws(TallyError) {
        let state: SQL = rejected ? ", state = \(State.rejected)" : ""
        try await update(
            eventID, "attempts = attempts + 1, last_error = \(error.code.rawValue)\(state)", from: [.received, .rejected], now: now)
    }

    /// Applies `changes` to an entry that is in one of `states`.
    private func update(_ eventID: String, _ changes: SQL, from states: [State], now: Date) async throws(TallyError) {
        let time = Self.millis(now)
        try await database.write { executor in
            try await executor.execute(
                "UPDATE journal SET \(changes), updated_at = \(time) WHERE event_id = \(eventID) AND state IN (\(list: states))")
        }
    }

    // MARK: - Purchase intents

    /// A purchase prepared and not yet paid: its order and token, to hand to the delivery of
    /// the transaction that pays it, or to close when the payment does not happen.
    public struct Intent: Sendable, Hashable {
        /// The intent's identifier (the order id, or a local one).
        public let id: String
        /// The ticket it was prepared with.
        public let ticket: PurchaseTicket
        /// `open` (payment sheet shown), `pending` (Ask to Buy), `paid` or `abandoned`.
        public let state: String
        /// When it was prepared.
        public let createdAt: Date
    }

    func recordIntent(_ ticket: PurchaseTicket, now: Date) async throws(TallyError) -> String {
        let id = ticket.orderID ?? "local-" + UUID().uuidString.lowercased()
        let time = Self.millis(now)
        try await database.write { executor in
            try await executor.execute(
                """
                INSERT INTO purchase_intents (id, product_id, order_id, app_account_token, state, created_at, updated_at)
                VALUES (\(id), \(ticket.productID), \(ticket.orderID), \(ticket.appAccountToken?.uuidString.lowercased()), 'open', \(time), \(time))
                ON CONFLICT (id) DO NOTHING
                """)
        }
        return id
    }

    func setIntent(_ id: String, state: String, transactionID: String? = nil, now: Date) async throws(TallyError) {
        let time = Self.millis(now)
        try await database.write { executor in
            try await executor.execute(
                """
                UPDATE purchase_intents SET state = \(state), transaction_id = COALESCE(\(transactionID), transaction_id), updated_at = \(time)
                WHERE id = \(id) AND state IN ('open', 'pending')
                """)
        }
    }

    /// The open or pending intent that a transaction pays: same product and, when both have
    /// one, the same app account token; the oldest first.
    func intent(paidBy transaction: StoreTransaction) async throws(TallyError) -> Intent? {
        let token = transaction.appAccountToken?.uuidString.lowercased()
        return try await database.read { executor in
            try await executor.fetchOne(
                IntentRow.self,
                """
                SELECT * FROM purchase_intents
                WHERE product_id = \(transaction.productID) AND state IN ('open', 'pending')
                    AND (\(token) IS NULL OR app_account_token IS NULL OR app_account_token = \(token))
                ORDER BY created_at LIMIT 1
                """
            )?.intent
        }
    }

    /// Intents not paid: open ones prepared before `open`, pending ones (Ask to Buy never
    /// answered or declined) prepared before `pending`.
    func unpaidIntents(openBefore open: Date, pendingBefore pending: Date) async throws(TallyError) -> [Intent] {
        let (openTime, pendingTime) = (Self.millis(open), Self.millis(pending))
        return try await database.read { executor in
            try await executor.fetchAll(
                IntentRow.self,
                """
                SELECT * FROM purchase_intents
                WHERE (state = 'open' AND created_at < \(openTime)) OR (state = 'pending' AND created_at < \(pendingTime)) ORDER BY created_at
                """
            ).map(\.intent)
        }
    }

    /// Every intent, oldest first.
    public func intents() async throws(TallyError) -> [Intent] {
        try await database.read { executor in
            try await executor.fetchAll(IntentRow.self, "SELECT * FROM purchase_intents ORDER BY created_at").map(\.intent)
        }
    }

    // MARK: - Spends whose answer did not arrive

    enum PendingSpend: Sendable, Hashable, Codable {
        case spend(SpendOrder)
        case commit(reservation: String, used: Int64, key: String)
        /// A hold for work under way, journaled before it is asked for; if the app dies (or the
        /// answer is lost) before the work ends, the next start asks again with the same key,
        /// which holds nothing more, and releases it.
        case hold(ReservationOrder)

        /// The column that holds a pending spend as JSON.
        static let bodyJSON = SQLColumn("body_json")

        var key: String {
            switch self {
            case .spend(let order): order.idempotencyKey
            case .commit(_, _, let key): key
            case .hold(let order): "hold:" + order.idempotencyKey
            }
        }
    }

    func recordPendingSpend(_ spend: PendingSpend, now: Date) async throws(TallyError) {
        let json = try Self.encode(spend)
        let kind =
            switch spend {
            case .spend: "spend"
            case .commit: "commit"
            case .hold: "release"
            }
        let time = Self.millis(now)
        try await database.write { executor in
            try await executor.execute(
                "INSERT INTO pending_spends (idempotency_key, kind, body_json, created_at) VALUES (\(spend.key), \(kind), \(json), \(time)) ON CONFLICT DO NOTHING"
            )
        }
    }

    func clearPendingSpend(_ key: String) async throws(TallyError) {
        try await database.write { executor in
            try await executor.execute("DELETE FROM pending_spends WHERE idempotency_key = \(key)")
        }
    }

    func pendingSpends() async throws(TallyError) -> [PendingSpend] {
        try await database.read { executor in
            try await executor.query("SELECT \(PendingSpend.bodyJSON) FROM pending_spends ORDER BY created_at").map { row in
                try TallyAPI.decoder().decode(PendingSpend.self, from: Data(try row.text(PendingSpend.bodyJSON).utf8))
            }
        }
    }

    // MARK: - Rows

    /// Milliseconds since 1970, clamped: a date far in the past or future (a cutoff of "never") must not trap.
    static func millis(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(.down)
        guard value.isFinite else { return value > 0 ? .max : .min }
        return Int64(max(-9.2e18, min(9.2e18, value)))
    }
    static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }

    static func encode(_ value: some Encodable) throws(TallyError) -> String {
        do {
            return String(decoding: try TallyAPI.encoder().encode(value), as: UTF8.self)
        } catch {
            throw TallyError(.storageFailed, "cannot encode \(type(of: value)): \(error)")
        }
    }

    /// A row of `journal`.
    struct EntryRow: SQLRowDecodable {
        enum Columns {
            static let eventID = SQLColumn("event_id")
            static let transactionID = SQLColumn("transaction_id")
            static let evidenceKind = SQLColumn("evidence_kind")
            static let evidence = SQLColumn("evidence")
            static let orderID = SQLColumn("order_id")
            static let state = SQLColumn("state")
            static let attempts = SQLColumn("attempts")
            static let lastError = SQLColumn("last_error")
            static let receiptJSON = SQLColumn("receipt_json")
            static let updatedAt = SQLColumn("updated_at")
        }

        let eventID: String
        let transactionID: String
        let evidenceKind: String
        let evidence: String
        let orderID: String?
        let state: String
        let attempts: Int64
        let lastError: String?
        let receiptJSON: String?
        let updatedAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            eventID = try row.text(Columns.eventID)
            transactionID = try row.text(Columns.transactionID)
            evidenceKind = try row.text(Columns.evidenceKind)
            evidence = try row.text(Columns.evidence)
            orderID = try row.optionalText(Columns.orderID)
            state = try row.text(Columns.state)
            attempts = try row.int(Columns.attempts)
            lastError = try row.optionalText(Columns.lastError)
            receiptJSON = try row.optionalText(Columns.receiptJSON)
            updatedAt = try row.int(Columns.updatedAt)
        }

        /// The entry, its transaction read back from its evidence.
        func entry() throws -> Entry {
            let receipt = try receiptJSON.map { try TallyAPI.decoder().decode(DeliveryReceipt.self, from: Data($0.utf8)) }
            return Entry(
                eventID: eventID, transaction: try StoreTransaction(kind: evidenceKind, text: evidence, transactionID: transactionID),
                orderID: orderID, state: State(rawValue: state) ?? .received, attempts: Int(attempts), lastError: lastError, receipt: receipt,
                updatedAt: PurchaseJournal.date(updatedAt))
        }
    }

    /// A row of `purchase_intents`.
    struct IntentRow: SQLRowDecodable {
        enum Columns {
            static let id = SQLColumn("id")
            static let productID = SQLColumn("product_id")
            static let orderID = SQLColumn("order_id")
            static let appAccountToken = SQLColumn("app_account_token")
            static let state = SQLColumn("state")
            static let createdAt = SQLColumn("created_at")
        }

        let intent: Intent

        init(row: SQLRow) throws(SQLDatabaseError) {
            intent = Intent(
                id: try row.text(Columns.id),
                ticket: PurchaseTicket(
                    productID: try row.text(Columns.productID), orderID: try row.optionalText(Columns.orderID),
                    appAccountToken: try row.optionalText(Columns.appAccountToken).flatMap(UUID.init(uuidString:))),
                state: try row.text(Columns.state), createdAt: PurchaseJournal.date(try row.int(Columns.createdAt)))
        }
    }
}
