import Foundation
import TallyCore
import TallyVerify

/// Moves customers to Tally from elsewhere (a hosted service, an own backend): pulls each
/// customer's transaction history from the App Store Server API and replays it through the
/// normal grant path, so balances and entitlements arrive without double grants, however often
/// the import runs and whatever the devices post afterwards. A customer with subscriptions then
/// gets what Apple says of them now (Get All Subscription Statuses), taken in as
/// `POST /v1/me/subscriptions/refresh` takes it: a subscription in its billing grace period
/// keeps access, one in billing retry shows so, rather than both reading as expired from the
/// history alone.
///
/// A customer named with the app's user id gets the transactions as that user (made when
/// missing), as if their device had posted them; a customer named by an original transaction id
/// alone gets them recorded as a notification would, granted to the user whose app account
/// token they carry, or later to the first user who presents them.
public struct AppleImport: Sendable {
    /// One customer to import.
    public struct Customer: Sendable, Hashable {
        /// Any transaction of the customer (their original transaction id, usually).
        public var transactionID: String
        /// The app's id of the user to grant to; `nil` to record without a user.
        public var appUserID: String?

        /// - Parameters:
        ///   - transactionID: any transaction of the customer.
        ///   - appUserID: the app's id of the user to grant to.
        public init(transactionID: String, appUserID: String? = nil) {
            self.transactionID = transactionID
            self.appUserID = appUserID
        }
    }

    /// What an import did, or with `dryRun` would do.
    public struct Report: Sendable, Hashable, Codable {
        /// Customers read.
        public var customers = 0
        /// Transactions Apple reported.
        public var transactions = 0
        /// Transactions new to Tally: recorded (and granted where a user is known). A
        /// transaction in the histories of several lines counts once, as new at its first.
        public var new = 0
        /// Transactions Tally had already, or an earlier line of the run brought: nothing changes.
        public var known = 0
        /// Subscriptions whose current state Apple reported, taken in (or, in a dry run, to be).
        public var subscriptions = 0
        /// Customers or transactions that could not be imported, with why.
        public var failures: [String] = []
        /// Whether nothing was written.
        public var dryRun = false

        /// An empty report.
        public init() {}
    }

    let apple: AppStoreServerClient
    let storage: SQLStorage

    /// - Parameters:
    ///   - apple: the App Store Server API client.
    ///   - storage: the server's storage.
    public init(apple: AppStoreServerClient, storage: SQLStorage) {
        self.apple = apple
        self.storage = storage
    }

    /// Imports the customers, in order.
    /// - Parameter dryRun: read Apple and the database, write nothing; the report counts what
    ///   the run would do.
    public func run(_ customers: [Customer], dryRun: Bool = false) async -> Report {
        var report = Report()
        report.dryRun = dryRun
        // What earlier lines brought: a real run finds their transactions known, and a dry run counts them so.
        var seen = Set<String>()
        // The subscriptions whose state Apple gave: one answer covers every subscription of a customer.
        var subscriptionsTaken = Set<String>()
        for customer in customers {
            report.customers += 1
            do {
                let transactions = try await history(customer.transactionID)
                report.transactions += transactions.count
                let ids = transactions.compactMap(\.verified.payload.transactionID)
                let stored = try await storage.notifications.knownTransactionIDs(ids.filter { !seen.contains($0) })
                for id in ids {
                    if seen.insert(id).inserted, !stored.contains(id) { report.new += 1 } else { report.known += 1 }
                }
                if !dryRun { try await deliver(transactions, to: customer, into: &report) }

                // The history ends at each subscription's last transaction; Apple knows whether it renews, is in grace or in billing retry.
                let originals = Set(
                    transactions.filter { $0.verified.payload.type == .autoRenewableSubscription }
                        .compactMap(\.verified.payload.originalTransactionID))
                guard !originals.isSubset(of: subscriptionsTaken) else { continue }
                let states = try await statuses(customer.transactionID)
                report.subscriptions += states.count
                subscriptionsTaken.formUnion(originals)
                subscriptionsTaken.formUnion(states.compactMap(\.transaction.verified.payload.originalTransactionID))
                if !dryRun { try await storage.notifications.recordFromApple(states) }
            } catch {
                report.failures.append("\(customer.transactionID): \(error)")
            }
        }
        return report
    }

    /// Every page of the customer's transaction history.
    private func history(_ transactionID: String) async throws -> [AppStoreServerClient.SignedTransaction] {
        var transactions: [AppStoreServerClient.SignedTransaction] = []
        var revision: String?
        repeat {
            let page = try await apple.transactionHistory(transactionID, revision: revision)
            transactions += page.transactions
            revision = page.hasMore ? page.revision : nil
        } while revision != nil
        return transactions
    }

    /// Replays the history through the grant path, each transaction on its own.
    /// - Throws: when the customer's user cannot be had.
    private func deliver(_ transactions: [AppStoreServerClient.SignedTransaction], to customer: Customer, into report: inout Report) async throws {
        var user: User?
        if let appUserID = customer.appUserID {
            // No token: the user signs in later through the app's server.
            user = try await storage.users.createUser(appUserID: appUserID, tokenHash: nil).0
        }
        for transaction in transactions {
            do {
                if let user {
                    _ = try await storage.purchases.deliver(transaction.verified, jws: transaction.jws, presenter: user, orderID: nil)
                } else {
                    try await storage.notifications.recordFromApple(transaction.verified, jws: transaction.jws, renewal: nil, renewalJWS: nil)
                }
            } catch {
                report.failures.append("\(transaction.verified.payload.transactionID ?? "?"): \(error)")
            }
        }
    }

    /// The customer's subscriptions as Apple reports them now; none when Apple knows none.
    private func statuses(_ transactionID: String) async throws -> [AppStoreServerClient.SubscriptionState] {
        do {
            return try await apple.subscriptionStatuses(transactionID)
        } catch {
            if error.kind == .notFound { return [] }
            throw error
        }
    }

    /// Reads the customers of a file: one per line, `TRANSACTION_ID` or `APP_USER_ID,TRANSACTION_ID`;
    /// blank lines and lines starting with `#` are skipped.
    /// - Throws: ``TallyAPIError`` `invalid_request` naming the first line that is neither.
    public static func customers(_ text: String) throws -> [Customer] {
        var customers: [Customer] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let id = fields.last ?? ""
            guard fields.count <= 2, (1...20).contains(id.utf8.count), id.utf8.allSatisfy({ (48...57).contains($0) }),
                fields.count == 1 || !(fields.first ?? "").isEmpty
            else {
                throw TallyAPIError(.invalidRequest, "line \(number + 1): expected TRANSACTION_ID or APP_USER_ID,TRANSACTION_ID, not \(line.prefix(80))")
            }
            customers.append(Customer(transactionID: id, appUserID: fields.count == 2 ? fields[0] : nil))
        }
        return customers
    }
}
