import Foundation
public import TallyCore
import TallySQL

/// Orders: a purchase announced before it is paid, fulfilled by the transaction that pays it.
extension PurchaseStore {

    /// Creates an order for a product of the catalog.
    public func createOrder(user: User, productID: String) async throws -> Order {
        guard catalog.product(productID) != nil else {
            throw StorageError(.unknownProduct, "no product \(productID) in the catalog")
        }
        return try await write { executor, time in
            let id = RandomID.uuid()
            let token = user.appAccountToken.uuidString.lowercased()
            let expiresAt = time + catalog.orderTTLSeconds * 1000
            try await executor.execute(
                """
                INSERT INTO orders (id, user_id, product_id, app_account_token, status, created_at, expires_at, updated_at)
                VALUES (\(id), \(user.id), \(productID), \(token), 'created', \(time), \(expiresAt), \(time))
                """)
            return try await Self.order(executor, user: user, id: id, now: time)
        }
    }

    /// One of the user's orders.
    public func order(user: User, id: String) async throws -> Order {
        try await read { executor, time in try await Self.order(executor, user: user, id: id, now: time) }
    }

    /// Closes an unpaid order as failed.
    public func failOrder(user: User, id: String, reason: String) async throws -> Order {
        // Refused, not cut: what is stored is what the client sent.
        guard reason.unicodeScalars.count <= 200 else { throw StorageError(.invalidRequest, "reason must be at most 200 characters") }
        return try await write { executor, time in
            let order = try await Self.order(executor, user: user, id: id, now: time)
            guard order.status == .created else {
                if order.status == .failed { return order }
                throw StorageError(.orderMismatch, "order \(id) is \(order.status)")
            }
            try await executor.execute(
                "UPDATE orders SET status = 'failed', failure_reason = \(reason), updated_at = \(time) WHERE id = \(id) AND status = 'created'")
            return try await Self.order(executor, user: user, id: id, now: time)
        }
    }

    static func order(_ executor: any SQLExecutor, user: User, id: String, now: Int64) async throws -> Order {
        guard let row = try await executor.fetchOne(OrderRow.self, "SELECT * FROM orders WHERE id = \(id) AND user_id = \(user.id)") else {
            throw StorageError(.notFound, "no order \(id)")
        }
        var status = row.status
        if status == .created, row.expiresAt <= now { status = .expired }
        return Order(
            orderID: id, productID: row.productID, appAccountToken: UUID(uuidString: row.appAccountToken) ?? user.appAccountToken,
            status: status, transactionID: row.transactionID, failureReason: row.failureReason,
            createdAt: SQLStorage.date(row.createdAt), expiresAt: SQLStorage.date(row.expiresAt))
    }

    /// A row of `orders`.
    struct OrderRow: SQLRowDecodable {
        enum Columns {
            static let productID = SQLColumn("product_id")
            static let appAccountToken = SQLColumn("app_account_token")
            static let status = SQLColumn("status")
            static let transactionID = SQLColumn("transaction_id")
            static let failureReason = SQLColumn("failure_reason")
            static let createdAt = SQLColumn("created_at")
            static let expiresAt = SQLColumn("expires_at")
        }

        let productID: String
        let appAccountToken: String
        let status: OrderStatus
        let transactionID: String?
        let failureReason: String?
        let createdAt: Int64
        let expiresAt: Int64

        init(row: SQLRow) throws(SQLDatabaseError) {
            productID = try row.text(Columns.productID)
            appAccountToken = try row.text(Columns.appAccountToken)
            status = OrderStatus(rawValue: try row.text(Columns.status))
            transactionID = try row.optionalText(Columns.transactionID)
            failureReason = try row.optionalText(Columns.failureReason)
            createdAt = try row.int(Columns.createdAt)
            expiresAt = try row.int(Columns.expiresAt)
        }
    }
}
