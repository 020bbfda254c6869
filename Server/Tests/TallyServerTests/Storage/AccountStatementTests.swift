import Foundation
import TallyCore
import Testing

@testable import TallyServer

/// The account read in one statement (PostgreSQL's `GET /v1/me` for a user without a
/// subscription allowance) answers what the account read statement by statement answers, on both
/// databases; a user with an allowance now is left to the transaction.
@Suite struct AccountStatementTests {
    /// Both reads of one user at the harness's time.
    static func bothReads(_ harness: Harness, _ user: User) async throws -> (oneStatement: AccountResponse?, transaction: AccountResponse) {
        let store = harness.storage.users
        let time = store.transactions.millis
        let summary = try await store.accounts.summaryInOneStatement(harness.database, user: user.id, time: time)
        let oneStatement = summary.map { balances, access in
            AccountResponse(
                userID: user.id, appAccountToken: user.appAccountToken, balances: balances, entitlements: access.entitlements,
                subscriptions: access.subscriptions)
        }
        let transaction = try await store.read { executor, _ in
            let (balances, access) = try await store.accounts.summaryStatementByStatement(executor, user: user.id, time: time)
            return AccountResponse(
                userID: user.id, appAccountToken: user.appAccountToken, balances: balances, entitlements: access.entitlements,
                subscriptions: access.subscriptions)
        }
        return (oneStatement, transaction)
    }

    /// A purchase answers with the account as `GET /v1/me` reads it, on PostgreSQL from the one
    /// statement or, for a user whose subscription gives an allowance now, statement by statement.
    @Test(arguments: Backend.available)
    func aPurchaseAnswersWithTheAccountAsItIs(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        for product in ["com.tally.photo.credits.10", "com.tally.pro.monthly", "com.tally.photo.credits.10"] {
            let (verified, jws) = try await harness.buy(product, for: user)
            let answer = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            let account = try await harness.storage.users.account(user: user)
            #expect(answer.balances == account.balances, "\(product)")
            #expect(answer.entitlements == account.entitlements, "\(product)")
        }
        let answer = try await harness.storage.users.account(user: user)
        #expect(answer.balances.contains { $0.allowance != nil }, "the subscription's allowance is in the balances: \(answer.balances)")
    }

    @Test(arguments: Backend.available)
    func everyPartOfAnAccountReadsTheSameInOneStatement(backend: Backend) async throws {
        let harness = try await Harness(backend)
        let empty = try await harness.user()
        let rich = try await harness.user()
        let lapsed = try await harness.user()
        func deliver(_ product: String, to user: User) async throws -> String {
            let (verified, jws) = try await harness.buy(product, for: user)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
            return try #require(verified.payload.transactionID)
        }
        // Two currencies, one partly spent; a lifetime unlock; a season pass (non-renewing).
        _ = try await deliver("com.tally.photo.credits.10", to: rich)
        _ = try await deliver("com.tally.zorya.report.career", to: rich)
        let credits = try await harness.balance(rich, "credits").available
        _ = try await harness.storage.spending.spend(
            user: rich, request: SpendRequest(currency: "credits", amount: 3, idempotencyKey: "s1", reference: nil))
        _ = try await deliver("com.tally.zorya.lifetime", to: rich)
        _ = try await deliver("com.tally.echo.season", to: rich)
        // Entitlements an operator granted: one standing, one revoked.
        _ = try await harness.storage.console.grantEntitlement(
            actor: "test", userID: rich.id, entitlement: "zorya.lifetime", until: Harness.start.addingTimeInterval(86_400 * 400),
            reason: "support", idempotencyKey: "g1")
        let revoked = try await harness.storage.console.grantEntitlement(
            actor: "test", userID: rich.id, entitlement: "zorya.lifetime", until: Harness.start.addingTimeInterval(86_400 * 10),
            reason: "support", idempotencyKey: "g2")
        _ = try await harness.storage.console.revokeEntitlement(actor: "test", userID: rich.id, grantID: revoked.id)
        // A subscription with an allowance: read in a transaction while it runs; once it has
        // lapsed (the server told of no renewal), in one statement, its rows still read.
        _ = try await deliver("com.tally.pro.monthly", to: lapsed)
        #expect(try await Self.bothReads(harness, lapsed).oneStatement == nil, "an allowance now is read in a transaction")
        try await harness.advance(by: .seconds(86_400 * 45))

        for user in [empty, rich, lapsed] {
            let (oneStatement, transaction) = try await Self.bothReads(harness, user)
            #expect(oneStatement == transaction)
        }
        let (rich1, _) = try await Self.bothReads(harness, rich)
        let account = try #require(rich1)
        #expect(account.balances.first { $0.currency == "credits" }?.available == credits - 3, "\(account.balances)")
        #expect(Set(account.entitlements.map(\.id)).isSuperset(of: ["zorya.lifetime"]))
        let (lapsed1, _) = try await Self.bothReads(harness, lapsed)
        #expect(try #require(lapsed1).subscriptions.map(\.productID) == ["com.tally.pro.monthly"])
        #expect(try #require(lapsed1).subscriptions.first?.status != .active)
    }

    /// A catalog whose subscriptions give allowances in two currencies: each user's allowance
    /// shows in its own currency and no other, is spent before what they bought, and a lapsed
    /// one reads the same in one statement.
    @Test(arguments: Backend.available)
    func allowancesInTwoCurrenciesEachShowInTheirOwn(backend: Backend) async throws {
        var catalog = Harness.catalog
        let yearly = try #require(catalog.products.firstIndex { $0.productID == "com.tally.pro.yearly" })
        catalog.products[yearly].allowance?.currency = "credits"
        catalog.products[yearly].allowance?.amount = 20
        let harness = try await Harness(backend, catalog: catalog)
        let monthly = try await harness.user()
        let annual = try await harness.user()
        let annualsAccount = try await harness.anotherCustomer(number: 1)
        for (product, user, customer) in [("com.tally.pro.monthly", monthly, harness.store), ("com.tally.pro.yearly", annual, annualsAccount)] {
            let (verified, jws) = try await harness.buy(product, for: user, from: customer)
            _ = try await harness.storage.purchases.deliver(verified, jws: jws, presenter: user, orderID: nil)
        }
        func allowance(_ user: User, _ currency: String) async throws -> Balance.AllowanceState? {
            try await harness.balance(user, currency).allowance
        }
        #expect(try await allowance(monthly, "seconds")?.granted == 3600)
        #expect(try await allowance(monthly, "credits") == nil)
        #expect(try await allowance(annual, "credits")?.granted == 20)
        #expect(try await allowance(annual, "seconds") == nil)

        // The sign-up grant's 2 credits stay: the allowance is spent first.
        let spent = try await harness.storage.spending.spend(
            user: annual, request: SpendRequest(currency: "credits", amount: 5, idempotencyKey: "a1", reference: nil))
        #expect(spent.balance.allowance?.used == 5)
        #expect(spent.balance.available == 2)
        #expect(spent.balance.spendable == 17)
        // A user without the credits allowance spends what they have, and no more.
        let refused = await #expect(throws: StorageError.self) {
            _ = try await harness.storage.spending.spend(
                user: monthly, request: SpendRequest(currency: "credits", amount: 3, idempotencyKey: "m1", reference: nil))
        }
        #expect(refused?.code == .insufficientCredits)
        #expect(refused?.available == 2)
        #expect(try await harness.balance(monthly, "credits").available == 2)
        for user in [monthly, annual] {
            #expect(try await Self.bothReads(harness, user).oneStatement == nil, "an allowance now is read in a transaction")
        }
        try await harness.advance(by: .seconds(86_400 * 400))
        for user in [monthly, annual] {
            let (oneStatement, transaction) = try await Self.bothReads(harness, user)
            #expect(oneStatement == transaction)
            #expect(transaction.balances.allSatisfy { $0.allowance == nil }, "\(transaction.balances)")
        }
        try await harness.checkInvariants()
    }
}
