import Foundation
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import TallyCore
import TallySQL
import TallyServer
import TallyTesting
import Testing

/// The API as a device and an app's server call it.
@Suite struct APITests {
    @Test func usersAnonymousAndByAppUserID() async throws {
        let api = try await API()
        try await api.test { client in
            let anonymous = try await client.newUser()
            #expect(anonymous.userToken.hasPrefix("tu_"))
            #expect(anonymous.granted == [Amount(currency: "credits", amount: 2)])

            let named = ByteBuffer(string: #"{"app_user_id":"firebase-123"}"#)
            let refused = try await client.post("/v1/users", token: nil, body: named)
            #expect(refused.status == .unauthorized)
            let first = try await client.post("/v1/users", token: API.secret, body: named)
            #expect(first.status == .created)
            let again = try await client.post("/v1/users", token: API.secret, body: named)
            #expect(again.status == .ok)
            #expect(try API.decode(CreateUserResponse.self, again).userID == (try API.decode(CreateUserResponse.self, first)).userID)
        }
    }

    @Test func productsInUkrainian() async throws {
        let api = try await API()
        try await api.test { client in
            let response = try await client.get("/v1/products?locale=uk-UA", token: nil)
            let products = try API.decode(ProductsResponse.self, response)
            #expect(products.locale == "uk")
            #expect(products.products.first { $0.productID == "com.tally.zorya.report.personality" }?.paywall.title == "Аналіз особистості")
            #expect(products.currencies.first { $0.code == "credits" }?.name == "Кредити")
            // The paywall shows a non-renewing subscription's length; Examples/tally.json gives the season pass 90 days.
            #expect(products.products.first { $0.productID == "com.tally.echo.season" }?.durationDays == 90)
            #expect(products.products.first { $0.productID == "com.tally.pro.monthly" }?.durationDays == nil)
            let english = try API.decode(ProductsResponse.self, try await client.get("/v1/products?locale=fr", token: nil))
            #expect(english.locale == "en")
        }
    }

    @Test func purchaseThenReplayThenSpend() async throws {
        let api = try await API()
        let harness = api.harness
        try await api.test { client in
            let user = try await client.newUser()
            let order = try API.decode(
                Order.self,
                try await client.post(
                    "/v1/me/orders", token: user.userToken, body: API.body(CreateOrderRequest(productID: "com.tally.photo.credits.50"))))
            #expect(order.appAccountToken == user.appAccountToken)
            guard
                case .success(let transaction) = try await harness.store.purchase(
                    "com.tally.photo.credits.50", options: SimulatedAppStore.PurchaseOptions(appAccountToken: order.appAccountToken, outcome: .success))
            else {
                Issue.record("no purchase")
                return
            }
            let request = API.body(PurchaseRequest(signedTransaction: transaction.jws, orderID: order.orderID))
            let first = try await client.post("/v1/me/purchases", token: user.userToken, body: request)
            #expect(first.status == .ok)
            let purchase = try API.decode(PurchaseResponse.self, first)
            #expect(purchase.granted == [Amount(currency: "credits", amount: 50)])
            #expect(!purchase.replayed)
            let replay = try API.decode(PurchaseResponse.self, try await client.post("/v1/me/purchases", token: user.userToken, body: request))
            #expect(replay.replayed)
            let fulfilled = try API.decode(Order.self, try await client.get("/v1/me/orders/\(order.orderID)", token: user.userToken))
            #expect(fulfilled.status == .fulfilled)

            // The same transaction posted with a second order: 409 with its code, not a constraint error.
            let second = try API.decode(
                Order.self,
                try await client.post(
                    "/v1/me/orders", token: user.userToken, body: API.body(CreateOrderRequest(productID: "com.tally.photo.credits.50"))))
            let reused = try await client.post(
                "/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: transaction.jws, orderID: second.orderID)))
            #expect(reused.status == .conflict)
            #expect(API.errorCode(reused) == "order_mismatch")
            #expect(try API.decode(Order.self, try await client.get("/v1/me/orders/\(second.orderID)", token: user.userToken)).status == .created)

            // A signed quantity the App Store never sells is refused and credits nothing.
            var eleven = transaction.payload
            eleven.transactionID = "2999999999999011"
            eleven.originalTransactionID = eleven.transactionID
            eleven.quantity = 11
            let tooMany = try await client.post(
                "/v1/me/purchases", token: user.userToken,
                body: API.body(PurchaseRequest(signedTransaction: try Harness.authority.sign(eleven))))
            #expect(tooMany.status == .badRequest)
            #expect(API.errorCode(tooMany) == "invalid_request")

            let spend = try await client.post(
                "/v1/me/spend", token: user.userToken,
                body: API.body(SpendRequest(currency: "credits", amount: 60, idempotencyKey: "too-much")))
            #expect(spend.status == .forbidden)
            let error = API.json(spend)["error"] as? [String: Any]
            #expect(error?["code"] as? String == "insufficient_credits")
            #expect(error?["available"] as? Int == 52)
            #expect(error?["request_id"] as? String == spend.headers[.init("X-Request-Id")!])

            let me = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(me.balances.first { $0.currency == "credits" }?.available == 52)
            let ledger = try API.decode(LedgerPage.self, try await client.get("/v1/me/ledger?currency=credits&limit=1", token: user.userToken))
            #expect(ledger.entries.first?.kind == .purchase)
            #expect(ledger.nextCursor != nil)
        }
    }

    @Test func signedDataThatDoesNotVerifyIsRefusedWithItsCode() async throws {
        let api = try await API()
        let harness = api.harness
        let stranger = try TestCertificateAuthority(profile: .init(issuedAt: Harness.start))
        try await api.test { client in
            let user = try await client.newUser()
            guard
                case .success(let genuine) = try await harness.store.purchase(
                    "com.tally.echo.3hours", options: SimulatedAppStore.PurchaseOptions(outcome: .success))
            else {
                Issue.record("the simulated purchase did not succeed")
                return
            }
            var forged = genuine.payload
            forged.quantity = 10
            let cases: [(String, String)] = [
                (try stranger.sign(genuine.payload), "untrusted_chain"),
                (genuine.jws.replacingOccurrences(of: ".", with: "..", options: [], range: genuine.jws.range(of: ".")), "malformed_jws"),
                (
                    String(genuine.jws.split(separator: ".")[0]) + "." + Base64.encodeURL(try AppStoreJSON.encoder().encode(forged)) + "."
                        + String(genuine.jws.split(separator: ".")[2]), "bad_signature"
                ),
                ("not a jws", "malformed_jws"),
            ]
            for (jws, code) in cases {
                let response = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: jws)))
                #expect(response.status == .unprocessableContent)
                #expect(API.errorCode(response) == "verification_failed")
                #expect((API.json(response)["error"] as? [String: Any])?["verification_code"] as? String == code)
            }
            let me = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(me.balances.first { $0.currency == "seconds" }?.available == 0)
            #expect(api.metrics.value("tally_verification_failures_total", ["code": "untrusted_chain"]) == 1)
        }
    }

    @Test func reservationsOverHTTP() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            let held = try await client.post(
                "/v1/me/reservations", token: user.userToken,
                body: API.body(ReservationRequest(currency: "credits", amount: 2, ttlSeconds: 60, idempotencyKey: "r1")))
            #expect(held.status == .created)
            let reservation = try API.decode(Reservation.self, held)
            let committed = try await client.post(
                "/v1/me/reservations/\(reservation.reservationID)/commit", token: user.userToken,
                body: API.body(CommitReservationRequest(used: 1)))
            #expect(try API.decode(Reservation.self, committed).balance.available == 1)
            let released = try await client.execute(
                uri: "/v1/me/reservations/\(reservation.reservationID)", method: .delete,
                headers: API.bearer(user.userToken))
            #expect(released.status == .conflict)
            #expect(API.errorCode(released) == "reservation_closed")
        }
    }

    @Test func notificationsAreVerifiedAndAppliedOnce() async throws {
        let api = try await API()
        let harness = api.harness
        try await api.test { client in
            let user = try await client.newUser()
            _ = try await harness.store.purchase(
                "com.tally.photo.credits.10", options: SimulatedAppStore.PurchaseOptions(appAccountToken: user.appAccountToken, outcome: .success))
            let payload = try #require(await harness.store.notifications.last?.signedPayload)
            let body = ByteBuffer(string: "{\"signedPayload\":\"\(payload)\"}")
            let first = try await client.post("/v1/notifications/appstore", token: nil, body: body)
            #expect(first.status == .ok)
            #expect(API.json(first)["outcome"] as? String == "applied")
            #expect(API.json(try await client.post("/v1/notifications/appstore", token: nil, body: body))["outcome"] as? String == "duplicate")
            let me = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
            #expect(me.balances.first { $0.currency == "credits" }?.available == 12)

            let forged = try await client.post("/v1/notifications/appstore", token: nil, body: ByteBuffer(string: #"{"signedPayload":"a.b.c"}"#))
            #expect(forged.status == .unprocessableContent)
            let notJSON = try await client.post("/v1/notifications/appstore", token: nil, body: ByteBuffer(string: "signedPayload=x"))
            #expect(notJSON.status == .badRequest)
        }
    }

    /// A refunded transaction, re-signed by the App Store and posted by the device, claws back
    /// what it granted exactly as the REFUND notification does: once, however often it is
    /// posted, and the notification arriving afterwards changes nothing more.
    @Test(arguments: Backend.available)
    func aReSignedRefundedTransactionClawsBackOnceAsARefundNotificationWould(backend: Backend) async throws {
        let api = try await API(backend)
        let store = api.harness.store
        let harness = api.harness
        try await api.test { client in
            // Two users in the same state: 12 credits bought and received, 7 spent (the signup lot
            // first, then 5 of the 10-pack), so a refund removes 5 and leaves 5 of debt.
            var users: [(user: CreateUserResponse, transactionID: String)] = []
            for _ in 0..<2 {
                let user = try await client.newUser()
                guard
                    case .success(let bought) = try await store.purchase(
                        "com.tally.photo.credits.10", options: SimulatedAppStore.PurchaseOptions(appAccountToken: user.appAccountToken, outcome: .success))
                else {
                    Issue.record("no purchase")
                    return
                }
                let posted = try await client.post("/v1/me/purchases", token: user.userToken, body: API.body(PurchaseRequest(signedTransaction: bought.jws)))
                #expect(posted.status == .ok)
                let spent = try await client.post(
                    "/v1/me/spend", token: user.userToken,
                    body: API.body(SpendRequest(currency: "credits", amount: 7, idempotencyKey: "s1")))
                #expect(spent.status == .ok)
                users.append((user, bought.transactionID))
            }
            let (device, refundedOnDevice) = users[0]
            let (notified, refundedByNotification) = users[1]

            func state(_ user: CreateUserResponse) async throws -> (available: Int64?, debt: Int64?, ledger: [String]) {
                let me = try API.decode(AccountResponse.self, try await client.get("/v1/me", token: user.userToken))
                let credits = me.balances.first { $0.currency == "credits" }
                let page = try API.decode(LedgerPage.self, try await client.get("/v1/me/ledger?limit=100", token: user.userToken))
                return (credits?.available, credits?.debt, page.entries.map { "\($0.kind) \($0.currency) \($0.amount)" })
            }
            func refundNotification(_ transactionID: String) async throws -> ByteBuffer {
                let notification = try #require(
                    try await harness.notifications().first {
                        $0.0.payload.notificationType == .refund && $0.0.transaction?.payload.transactionID == transactionID
                    })
                return ByteBuffer(string: "{\"signedPayload\":\"\(notification.1)\"}")
            }

            // The device posts the re-signed transaction (twice); the other user's refund comes as a notification.
            let resigned = try await store.refund(transactionID: refundedOnDevice)
            #expect(resigned.payload.revocationDate != nil && resigned.payload.revocationReason != nil)
            try await store.refund(transactionID: refundedByNotification)
            let body = API.body(PurchaseRequest(signedTransaction: resigned.jws))
            let first = try await client.post("/v1/me/purchases", token: device.userToken, body: body)
            #expect(first.status == .ok)
            #expect(try API.decode(PurchaseResponse.self, first).granted.isEmpty)
            let afterFirst = try await state(device)
            #expect(afterFirst.available == 0 && afterFirst.debt == 5)
            #expect(afterFirst.ledger.filter { $0.hasPrefix("refund") }.sorted() == ["refund credits -5", "refund_debt credits -5"])
            #expect(try await client.post("/v1/me/purchases", token: device.userToken, body: body).status == .ok)
            #expect(try await state(device) == afterFirst)

            let notification = try await client.post("/v1/notifications/appstore", token: nil, body: try await refundNotification(refundedByNotification))
            #expect(notification.status == .ok)
            let byNotification = try await state(notified)
            #expect(byNotification.available == afterFirst.available && byNotification.debt == afterFirst.debt)
            #expect(byNotification.ledger == afterFirst.ledger)

            // The device's own REFUND notification, arriving late, finds the refund applied.
            let late = try await client.post("/v1/notifications/appstore", token: nil, body: try await refundNotification(refundedOnDevice))
            #expect(late.status == .ok)
            #expect(try await state(device) == afterFirst)
        }
        try await harness.checkInvariants()
    }

    @Test func adminEndpointsNeedTheSecretKey() async throws {
        let api = try await API()
        try await api.test { client in
            let user = try await client.newUser()
            #expect(try await client.get("/v1/admin/users/\(user.userID)", token: nil).status == .unauthorized)
            #expect(try await client.get("/v1/admin/users/\(user.userID)", token: user.userToken).status == .unauthorized)
            let admin = try API.decode(AdminUser.self, try await client.get("/v1/admin/users/\(user.userID)", token: API.secret))
            #expect(admin.balances.first { $0.currency == "credits" }?.available == 2)
            let adjust = try await client.post(
                "/v1/admin/users/\(user.userID)/adjustments", token: API.secret,
                body: ByteBuffer(string: #"{"currency":"credits","amount":3,"reason":"goodwill","idempotency_key":"g1"}"#))
            #expect(try API.decode(AdminAdjustment.self, adjust).balance.available == 5)
            #expect(try await client.get("/v1/admin/transactions?type=consumable", token: API.secret).status == .ok)
            #expect(try await client.get("/v1/admin/transactions?type=gold", token: API.secret).status == .badRequest)
            #expect(try await client.get("/v1/admin/notifications", token: API.secret).status == .ok)
        }
    }

    @Test func systemEndpoints() async throws {
        let api = try await API()
        try await api.test { client in
            #expect(API.json(try await client.get("/healthz", token: nil))["status"] as? String == "ok")
            _ = try await client.newUser()
            let metrics = api.metrics.exposition()
            #expect(metrics.contains("tally_http_requests_total{method=\"POST\",route=\"/v1/users\",status=\"201\"} 1"))
            #expect(metrics.contains("tally_http_request_duration_seconds_bucket"))
            let spec = String(buffer: try await client.get("/openapi.yaml", token: nil).body)
            #expect(spec.hasPrefix("openapi: 3.1.0"))
            let unknown = try await client.get("/v1/nothing", token: nil)
            #expect(unknown.status == .notFound)
            #expect(API.errorCode(unknown) == "not_found")
            let echoed = try await client.execute(uri: "/healthz", method: .get, headers: [.init("X-Request-Id")!: "abc-123"])
            #expect(echoed.headers[.init("X-Request-Id")!] == "abc-123")
        }
    }

    /// `/healthz` asks the database one statement outside any transaction (one round trip on
    /// PostgreSQL, not BEGIN, SELECT and COMMIT), and answers 503 `unavailable` when the
    /// database does not answer.
    @Test(arguments: Backend.available)
    func healthAsksOneStatement(_ backend: Backend) async throws {
        var probe: HealthProbe?
        let api = try await API(backend) { base in
            let wrapped = HealthProbe(base)
            probe = wrapped
            return wrapped
        }
        let database = try #require(probe)
        try await api.test { client in
            let before = database.calls
            let healthy = try await client.get("/healthz", token: nil)
            #expect(healthy.status == .ok)
            #expect(database.calls.transactions == before.transactions)
            #expect(database.calls.statements == before.statements + 1)
            database.failing = true
            let down = try await client.get("/healthz", token: nil)
            #expect(down.status == .serviceUnavailable)
            #expect(API.errorCode(down) == "unavailable")
            database.failing = false
            #expect(try await client.get("/healthz", token: nil).status == .ok)
        }
    }
}

/// A database that counts its transactions and its statements outside one, and can be made
/// to fail them as a database that does not answer.
final class HealthProbe: SQLDatabase {
    private let base: any SQLDatabase
    private let state = NIOLockedValueBox((calls: (transactions: 0, statements: 0), failing: false))

    init(_ base: any SQLDatabase) { self.base = base }

    var calls: (transactions: Int, statements: Int) { state.withLockedValue { $0.calls } }
    var failing: Bool {
        get { state.withLockedValue { $0.failing } }
        set { state.withLockedValue { $0.failing = newValue } }
    }

    private func enter(transaction: Bool) throws {
        let failing = state.withLockedValue { state in
            if transaction { state.calls.transactions += 1 } else { state.calls.statements += 1 }
            return state.failing
        }
        if failing { throw SQLDatabaseError(.unavailable, "the database does not answer") }
    }

    var dialect: SQLDialect { base.dialect }

    func write<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try enter(transaction: true)
        return try await base.write(work)
    }

    func read<T: Sendable>(_ work: @escaping @Sendable (any SQLExecutor) async throws -> T) async throws -> T {
        try enter(transaction: true)
        return try await base.read(work)
    }

    func readStatement(_ sql: SQL) async throws -> [SQLRow] {
        try enter(transaction: false)
        return try await base.readStatement(sql)
    }

    func migrate(_ migrations: [Migration]) async throws { try await base.migrate(migrations) }

    func close() async { await base.close() }
}
