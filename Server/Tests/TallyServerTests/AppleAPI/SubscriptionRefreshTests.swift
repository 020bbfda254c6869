import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import TallyCore
import TallyServer
import TallyTesting
import Testing

/// `POST /v1/me/subscriptions/refresh`: what Apple knows of a subscription reaches `GET /v1/me`
/// even when its notification was lost: a renewal, renewal turned off, a refund.
@Suite(.timeLimit(.minutes(2))) struct SubscriptionRefreshTests {
    static func pro(_ client: some TestClientProtocol, _ token: String) async throws -> Entitlement? {
        try API.decode(AccountResponse.self, try await client.get("/v1/me", token: token)).entitlements.first { $0.id == "pro" }
    }

    @Test func aLostRenewalRenewalTurnedOffAndARefundReachTheAccountAfterARefresh() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(api.harness.store, key: key) { url in
            try await buildApplication(configuration: AppStoreServerClientTests.server(api, key: key, url: url)).test(.router) { client in
                let user = try await client.newUser()
                let bought = try await AppStoreServerClientTests.buy(api.harness, "com.tally.pro.monthly", token: user.appAccountToken)
                let posted = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: bought.jws)))
                #expect(posted.status == .ok)
                let first = try #require(try await Self.pro(client, user.userToken)?.expiresAt)

                // A month on, the App Store renews it; the notification never arrives.
                try await api.harness.advance(by: .seconds(31 * 86_400))
                #expect(try await Self.pro(client, user.userToken)?.expiresAt == first, "without a refresh the server knows the first month only")
                #expect(try await Self.pro(client, user.userToken)?.active == false, "and reads it as expired")
                let refresh = { try await client.post("/v1/me/subscriptions/refresh", token: user.userToken) }
                let renewed = try await refresh()
                #expect(renewed.status == .ok)
                let afterRenewal = try #require(try API.decode(AccountResponse.self, renewed).entitlements.first { $0.id == "pro" })
                #expect(try #require(afterRenewal.expiresAt) > first.addingTimeInterval(27 * 86_400), "the renewal is taken in")
                #expect(afterRenewal.willRenew == true)

                try await api.harness.store.setAutoRenew(originalTransactionID: bought.id, enabled: false)
                _ = try await refresh()
                #expect(try await Self.pro(client, user.userToken)?.willRenew == false, "renewal turned off")
                #expect(try await Self.pro(client, user.userToken)?.active == true, "the renewed month still gives access")

                let latest = try #require(await api.harness.store.subscriptionStatuses().first?.transaction.transactionID)
                try await api.harness.store.refund(transactionID: latest)
                let refunded = try API.decode(AccountResponse.self, try await refresh())
                #expect(refunded.entitlements.first { $0.id == "pro" }?.active == false, "the refunded month gives no access")
                try await api.harness.checkInvariants()
            }
        }
    }

    @Test func aRefreshIsRefusedWithAStableCodeWhenAppleCannotBeAsked() async throws {
        let api = try await API()
        let key = P256.Signing.PrivateKey()
        try await buildApplication(configuration: AppStoreServerClientTests.server(api, key: key, url: nil)).test(.router) { client in
            let user = try await client.newUser()
            let response = try await client.post("/v1/me/subscriptions/refresh", token: user.userToken)
            #expect(response.status == .unprocessableContent)
            #expect(API.errorCode(response) == "apple_not_configured")
        }
        try await AppStoreServerClientTests.apple(api.harness.store, key: key) { url in
            try await buildApplication(configuration: AppStoreServerClientTests.server(api, key: key, url: url, attempts: 1)).test(.router) { client in
                let user = try await client.newUser()
                _ = try await AppStoreServerClientTests.buy(api.harness, "com.tally.pro.monthly", token: user.appAccountToken)
                let none = try await client.post("/v1/me/subscriptions/refresh", token: user.userToken)
                #expect(none.status == .ok, "a user with no subscription on record: nothing to ask")
                let bought = try await AppStoreServerClientTests.buy(api.harness, "com.tally.pro.yearly", token: user.appAccountToken)
                _ = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: bought.jws)))
                await api.harness.store.failServerAPI([ServerAPIFault(status: 503)])
                let down = try await client.post("/v1/me/subscriptions/refresh", token: user.userToken)
                #expect(down.status == .serviceUnavailable)
                #expect(API.errorCode(down) == "apple_unavailable")
                let anonymous = try await client.post("/v1/me/subscriptions/refresh", token: nil)
                #expect(anonymous.status == .unauthorized)
            }
        }
    }

    @Test(arguments: Backend.available)
    func aSubscriptionRenewingNowIsAskedOfAppleOnAScheduleAndLeftAloneOtherwise(_ backend: Backend) async throws {
        let harness = try await Harness(backend)
        let user = try await harness.user()
        let (monthly, jws) = try await harness.buy("com.tally.pro.monthly", for: user)
        _ = try await harness.storage.purchases.deliver(monthly, jws: jws, presenter: user, orderID: nil)
        let first = try #require(try await harness.storage.users.account(user: user).entitlements.first { $0.id == "pro" }?.expiresAt)
        let key = P256.Signing.PrivateKey()
        try await AppStoreServerClientTests.apple(harness.store, key: key) { url in
            let apple = AppStoreServerClientTests.client(
                harness, AppStoreServerClientTests.configuration(key: key, [(.sandbox, url)]), tokenTime: { Harness.start })
            let clock = harness.clock
            let sync = SubscriptionSync(apple: apple, notifications: harness.storage.notifications, now: { clock.now })
            #expect(try await sync.run() == 0, "a month from renewal: Apple is not asked")
            #expect(await harness.store.serverAPIRequestCount == 0)

            // The App Store renews it at its expiry; the notification is lost.
            try await harness.advance(by: .seconds(first.timeIntervalSince(Harness.start) + 60))
            #expect(try await sync.run() == 1)
            let renewed = try await harness.storage.users.account(user: user).entitlements.first { $0.id == "pro" }
            #expect(renewed?.active == true, "renewed within minutes, without the notification")
            #expect(try #require(renewed?.expiresAt) > first)
            #expect(try await sync.run() == 0, "asked a moment ago: left alone")
            #expect(await harness.store.serverAPIRequestCount == 1)
        }
    }
}
