import Foundation
import Hummingbird
import TallyCore
import TallyTesting
import TallyVerify

/// `/control/…`: buy (StoreKit 2, or StoreKit 1 on a device, with its app receipt), approve or
/// decline Ask to Buy, refund, advance time, expire, list transactions, read and refresh a
/// device's app receipt. JSON in and out, snake_case; errors as `{"error":{"code","message"}}`.
struct ControlAPI: Sendable {
    let store: SimulatedAppStore

    func register(on router: Router<BasicRequestContext>) {
        let control = router.group("control")
        control.get("status") { _, _ in try json(await status()) }
        control.get("root.pem") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/x-pem-file"],
                body: .init(byteBuffer: ByteBuffer(string: try store.authority.root.serializeAsPEM().pemString + "\n")))
        }
        control.get("receipt-root.pem") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/x-pem-file"],
                body: .init(byteBuffer: ByteBuffer(string: try await store.receiptAuthority().root.serializeAsPEM().pemString + "\n")))
        }
        control.get("receipt") { request, _ in
            try await handle {
                let device = try Self.device(request.uri.queryParameters["device_id"].map(String.init))
                return ReceiptBody(try await store.appReceipt(for: device))
            }
        }
        control.post("receipt/refresh") { request, context in
            try await handle {
                let device = try Self.device(try await decode(DeviceBody.self, request, context).deviceID)
                return ReceiptBody(try await store.refreshAppReceipt(for: device))
            }
        }
        control.put("settings") { request, context in try await handle { try await updateSettings(decode(SettingsBody.self, request, context)) } }
        control.get("products") { _, _ in try json(store.configuration.catalog.products.map(ProductBody.init)) }

        control.post("purchases") { request, context in try await handle { try await purchase(decode(PurchaseBody.self, request, context)) } }
        control.get("pending") { _, _ in try json(await store.pendingPurchases.map(PendingBody.init)) }
        control.post("pending/:id/approve") { _, context in try await handle { try await approve(context.parameters.require("id")) } }
        control.post("pending/:id/decline") { _, context in
            try await handle {
                try await store.declineAskToBuy(context.parameters.require("id"))
                return Empty()
            }
        }
        control.post("pending/:id/resolve") { _, context in
            try await handle { TransactionBody(try await store.resolveInterruptedPurchase(context.parameters.require("id"))) }
        }

        control.get("transactions") { request, _ in
            try await handle {
                let unfinished = request.uri.queryParameters["unfinished"] == "true"
                let transactions = unfinished ? try await store.unfinishedTransactions() : try await store.history(includingFinishedConsumables: true)
                var bodies: [TransactionBody] = []
                for transaction in transactions {
                    bodies.append(TransactionBody(transaction, finished: await store.isFinished(transactionID: transaction.transactionID)))
                }
                return bodies
            }
        }
        control.get("entitlements") { _, _ in try await handle { try await store.currentEntitlements().map { TransactionBody($0) } } }
        control.post("transactions/:id/finish") { _, context in
            try await handle {
                try await store.finish(transactionID: context.parameters.require("id"))
                return Empty()
            }
        }
        control.post("transactions/:id/refund") { request, context in
            try await handle {
                let body = try await decode(RefundBody.self, request, context, allowEmpty: true)
                return TransactionBody(try await store.refund(transactionID: context.parameters.require("id"), revocation: try body.revocation()))
            }
        }
        control.post("transactions/:id/reverse-refund") { _, context in
            try await handle { TransactionBody(try await store.reverseRefund(transactionID: context.parameters.require("id"))) }
        }
        control.post("transactions/:id/decline-refund") { _, context in
            try await handle {
                try await store.declineRefund(transactionID: context.parameters.require("id"))
                return Empty()
            }
        }
        control.post("transactions/:id/consumption-request") { _, context in
            try await handle {
                try await store.requestConsumptionInformation(transactionID: context.parameters.require("id"))
                return Empty()
            }
        }
        // How many times the app's server sent consumption information for the transaction.
        control.get("transactions/:id/consumption") { _, context in
            try await handle { ["count": await store.consumptionInformation(transactionID: try context.parameters.require("id")).count] }
        }
        control.post("transactions/:id/share-with-family") { _, context in
            try await handle { TransactionBody(try await store.shareWithFamily(transactionID: context.parameters.require("id"))) }
        }
        control.post("transactions/:id/revoke-family-sharing") { _, context in
            try await handle { TransactionBody(try await store.revokeFamilySharing(transactionID: context.parameters.require("id"))) }
        }

        control.get("subscriptions") { _, _ in
            try await handle { try await store.subscriptionStatuses().map(SubscriptionBody.init) }
        }
        control.post("subscriptions/:original/auto-renew") { request, context in
            try await handle {
                let body = try await decode(AutoRenewBody.self, request, context)
                try await store.setAutoRenew(originalTransactionID: context.parameters.require("original"), enabled: body.enabled)
                return Empty()
            }
        }
        control.post("subscriptions/:original/expire") { _, context in
            try await handle {
                try await store.expire(originalTransactionID: context.parameters.require("original"))
                return Empty()
            }
        }
        control.post("subscriptions/:original/renew") { _, context in
            try await handle {
                try await store.forceRenewal(originalTransactionID: context.parameters.require("original"))
                return Empty()
            }
        }
        control.post("subscriptions/:original/fail-next-renewal") { _, context in
            try await handle {
                try await store.failNextRenewal(originalTransactionID: context.parameters.require("original"))
                return Empty()
            }
        }
        control.post("subscriptions/:original/resolve-billing-issue") { _, context in
            try await handle {
                try await store.resolveBillingIssue(originalTransactionID: context.parameters.require("original"))
                return Empty()
            }
        }

        control.post("time/advance") { request, context in
            try await handle {
                let body = try await decode(AdvanceBody.self, request, context)
                guard body.seconds >= 0, body.seconds <= 100 * 366 * 86_400 else {
                    throw ControlError.invalid("seconds must be between 0 and 100 years")
                }
                try await store.advance(by: .seconds(body.seconds))
                return try await status()
            }
        }
        control.get("notifications") { _, _ in try json(await store.notifications.map(NotificationBody.init)) }
        control.post("notifications/test") { _, _ in try await handle { ["token": try await store.requestTestNotification()] } }
    }

    // MARK: - Bodies

    struct Empty: Encodable {}

    struct StatusBody: Encodable {
        var now: String
        var bundleID: String
        var environment: String
        var askToBuyEnabled: Bool
        var interruptedPurchasesEnabled: Bool
        var billingRetryOnRenewal: Bool
        var billingGracePeriodEnabled: Bool
        var purchaseFailure: String?
        var timeRate: String
    }

    func status() async throws -> StatusBody {
        let settings = await store.settings
        let now = await store.now
        return StatusBody(
            now: now.formatted(.iso8601), bundleID: store.configuration.bundleID,
            environment: store.configuration.environment.rawValue, askToBuyEnabled: settings.askToBuyEnabled,
            interruptedPurchasesEnabled: settings.interruptedPurchasesEnabled, billingRetryOnRenewal: settings.billingRetryOnRenewal,
            billingGracePeriodEnabled: settings.billingGracePeriodEnabled, purchaseFailure: settings.purchaseFailure?.rawValue,
            timeRate: (TimeRate(rawValue: settings.timeRate) ?? .realTime).name)
    }

    struct SettingsBody: Decodable {
        var askToBuyEnabled: Bool?
        var interruptedPurchasesEnabled: Bool?
        var billingRetryOnRenewal: Bool?
        var billingGracePeriodEnabled: Bool?
        /// A store error code, or "" to stop failing.
        var purchaseFailure: String?
        var timeRate: String?
    }

    /// The failures a purchase can be told to end in.
    static let failures: Set<String> = ["network_error", "payment_declined", "payment_not_allowed", "product_unavailable"]

    func updateSettings(_ body: SettingsBody) async throws -> StatusBody {
        if let failure = body.purchaseFailure, !failure.isEmpty, !Self.failures.contains(failure) {
            throw ControlError.invalid("purchase_failure must be \"\" or one of \(Self.failures.sorted())")
        }
        var rate: TimeRate?
        if let name = body.timeRate {
            guard let parsed = TimeRate(name: name) else { throw ControlError.invalid("unknown time rate \(name)") }
            rate = parsed
        }
        try await store.updateSettings { settings in
            if let value = body.askToBuyEnabled { settings.askToBuyEnabled = value }
            if let value = body.interruptedPurchasesEnabled { settings.interruptedPurchasesEnabled = value }
            if let value = body.billingRetryOnRenewal { settings.billingRetryOnRenewal = value }
            if let value = body.billingGracePeriodEnabled { settings.billingGracePeriodEnabled = value }
            if let value = body.purchaseFailure { settings.purchaseFailure = value.isEmpty ? nil : SimulatedAppStoreError.Code(rawValue: value) }
            if let rate { settings.timeRate = rate.rawValue }
        }
        return try await status()
    }

    struct ProductBody: Encodable {
        var productID: String
        var kind: String
        var displayPrice: String
        var price: Int64
        var name: String?
        init(_ product: StoreKitConfiguration.Product) {
            productID = product.id
            kind = product.kind.rawValue
            displayPrice = product.displayPrice
            price = product.price
            name = product.localizations.first?.displayName
        }
    }

    struct PurchaseBody: Decodable {
        var productID: String
        var appAccountToken: String?
        var quantity: Int?
        var promotionalOfferID: String?
        /// success, user_cancelled, ask_to_buy, interrupted, unverified, or a store error code to fail with.
        var outcome: String?
        /// 1 for a StoreKit 1 payment on `device_id`; 2 (the default) for StoreKit 2.
        var storekit: Int?
        /// StoreKit 1: the device whose app receipt the purchase updates (a UUID, or hexadecimal).
        var deviceID: String?
        /// StoreKit 1: `SKMutablePayment.applicationUsername`; kept as the app account token only when it is a UUID.
        var applicationUsername: String?
    }

    struct PurchaseResultBody: Encodable {
        var result: String
        var transactionID: String?
        var signedTransaction: String?
        var pendingID: String?
        /// StoreKit 1: the device's app receipt after the purchase, base64.
        var receipt: String?
    }

    func purchase(_ body: PurchaseBody) async throws -> PurchaseResultBody {
        var token: UUID?
        if let text = body.appAccountToken {
            guard let uuid = UUID(uuidString: text) else { throw ControlError.invalid("app_account_token must be a UUID") }
            token = uuid
        }
        switch body.storekit {
        case nil, 2:
            guard body.deviceID == nil, body.applicationUsername == nil else {
                throw ControlError.invalid("device_id and application_username are for StoreKit 1 payments (\"storekit\": 1)")
            }
        case 1:
            guard body.appAccountToken == nil, body.promotionalOfferID == nil else {
                throw ControlError.invalid("a StoreKit 1 payment carries application_username, not app_account_token or promotional_offer_id")
            }
        case let other?:
            throw ControlError.invalid("storekit must be 1 or 2, not \(other)")
        }
        let outcome: SimulatedAppStore.Outcome =
            switch body.outcome {
            case nil, "automatic": .automatic
            case "success": .success
            case "user_cancelled": .userCancelled
            case "ask_to_buy": .askToBuy
            case "interrupted": .interrupted
            case "unverified": .unverified
            case let code? where Self.failures.contains(code): .failure(SimulatedAppStoreError.Code(rawValue: code))
            case let other?:
                throw ControlError.invalid(
                    "outcome must be automatic, success, user_cancelled, ask_to_buy, interrupted, unverified or one of \(Self.failures.sorted()), not \(other)")
            }
        if body.storekit == 1 {
            let device = try Self.device(body.deviceID)
            let payment = SimulatedAppStore.StoreKit1Payment(
                productID: body.productID, quantity: body.quantity ?? 1, applicationUsername: body.applicationUsername, outcome: outcome)
            let result = try await store.purchase(payment, on: device)
            var answer = Self.answer(result)
            if case .success = result { answer.receipt = try await store.appReceipt(for: device).base64 }
            return answer
        }
        let options = SimulatedAppStore.PurchaseOptions(
            appAccountToken: token, quantity: body.quantity ?? 1, promotionalOfferID: body.promotionalOfferID, outcome: outcome)
        return Self.answer(try await store.purchase(body.productID, options: options))
    }

    static func answer(_ result: SimulatedAppStore.PurchaseResult) -> PurchaseResultBody {
        switch result {
        case .success(let transaction):
            return PurchaseResultBody(result: "success", transactionID: transaction.transactionID, signedTransaction: transaction.jws)
        case .userCancelled:
            return PurchaseResultBody(result: "user_cancelled")
        case .pending(let pending):
            return PurchaseResultBody(result: "pending", pendingID: pending.id)
        }
    }

    /// A device identifier as the control API takes it: a UUID (`identifierForVendor`) or hexadecimal.
    static func device(_ text: String?) throws -> DeviceIdentifier {
        guard let text, !text.isEmpty else { throw ControlError.invalid("device_id is required: the device's identifier, a UUID") }
        guard text.utf8.count <= 128, let device = DeviceIdentifier(hex: text) else {
            throw ControlError.invalid("device_id must be a UUID or hexadecimal, not \(text.prefix(128))")
        }
        return device
    }

    struct DeviceBody: Decodable {
        var deviceID: String?
    }

    struct ReceiptBody: Encodable {
        var deviceID: String
        /// The PKCS#7 receipt, base64, as a device sends it.
        var receipt: String
        var createdAt: String?
        var transactionIDs: [String]

        enum CodingKeys: String, CodingKey {
            case deviceID, receipt, createdAt
            case transactionIDs = "transactionIds"
        }

        init(_ receipt: SimulatedAppStore.SignedReceipt) {
            deviceID = receipt.device.description
            self.receipt = receipt.base64
            createdAt = receipt.payload.receiptCreationDate?.formatted(.iso8601)
            transactionIDs = receipt.transactionIDs
        }
    }

    func approve(_ id: String) async throws -> TransactionBody {
        TransactionBody(try await store.approveAskToBuy(id))
    }

    struct PendingBody: Encodable {
        var id: String
        var reason: String
        var productID: String
        var quantity: Int
        var requestedAt: String
        init(_ pending: SimulatedAppStore.PendingPurchase) {
            id = pending.id
            reason = pending.reason.rawValue
            productID = pending.productID
            quantity = pending.quantity
            requestedAt = pending.requestedAt.formatted(.iso8601)
        }
    }

    struct TransactionBody: Encodable {
        var transactionID: String
        var originalTransactionID: String?
        var productID: String
        var finished: Bool?
        var revoked: Bool
        var signedTransaction: String
        init(_ transaction: SimulatedAppStore.SignedTransaction, finished: Bool? = nil) {
            transactionID = transaction.transactionID
            originalTransactionID = transaction.payload.originalTransactionID
            productID = transaction.productID
            self.finished = finished
            revoked = transaction.payload.revocationDate != nil
            signedTransaction = transaction.jws
        }
    }

    struct RefundBody: Decodable {
        /// app_issue or other.
        var reason: String?
        /// full, prorated or family_revoke.
        var type: String?
        var percentage: Int?

        func revocation() throws -> SimulatedAppStore.Revocation {
            let reason: RevocationReason =
                switch self.reason {
                case nil, "other": .otherReason
                case "app_issue": .appIssue
                default: throw ControlError.invalid("reason must be app_issue or other")
                }
            let type: RevocationType =
                switch self.type {
                case nil, "full": .refundFull
                case "prorated": .refundProrated
                case "family_revoke": .familyRevoke
                default: throw ControlError.invalid("type must be full, prorated or family_revoke")
                }
            return SimulatedAppStore.Revocation(reason: reason, type: type, percentage: percentage)
        }
    }

    struct SubscriptionBody: Encodable {
        var groupID: String
        var status: Int32
        var originalTransactionID: String?
        var productID: String
        var signedTransaction: String
        var signedRenewalInfo: String
        init(_ entry: (groupID: String, status: SubscriptionStatus, transaction: SimulatedAppStore.SignedTransaction, renewalInfo: String)) {
            groupID = entry.groupID
            status = entry.status.rawValue
            originalTransactionID = entry.transaction.payload.originalTransactionID
            productID = entry.transaction.productID
            signedTransaction = entry.transaction.jws
            signedRenewalInfo = entry.renewalInfo
        }
    }

    struct AutoRenewBody: Decodable { var enabled: Bool }
    struct AdvanceBody: Decodable { var seconds: Int64 }

    struct NotificationBody: Encodable {
        var notificationUuid: String
        var notificationType: String
        var subtype: String?
        var transactionID: String?
        var delivered: Bool
        var attempts: [String]
        var signedPayload: String
        init(_ notification: SimulatedAppStore.SentNotification) {
            notificationUuid = notification.uuid
            notificationType = notification.type.rawValue
            subtype = notification.subtype?.rawValue
            transactionID = notification.transactionID
            delivered = notification.delivered
            attempts = notification.attempts.map { "\($0.date.formatted(.iso8601)) \($0.result)" }
            signedPayload = notification.signedPayload
        }
    }

    // MARK: - Plumbing

    struct ControlError: Error {
        let status: HTTPResponse.Status
        let code: String
        let message: String

        static func invalid(_ message: String) -> ControlError {
            ControlError(status: .badRequest, code: "invalid_body", message: message)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: BasicRequestContext, allowEmpty: Bool = false) async throws -> T {
        var request = request
        let buffer = try await request.collectBody(upTo: AppStoreSimulatorRouter.maximumBodySize)
        var data = Data(buffer: buffer)
        if data.isEmpty, allowEmpty { data = Data("{}".utf8) }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = JSONKeys.fromSnakeCase
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            throw ControlError(status: .badRequest, code: "invalid_body", message: "the body is not the JSON this endpoint takes: \(error)")
        }
    }

    func handle(_ work: () async throws -> some Encodable) async throws -> Response {
        do {
            return try json(try await work())
        } catch let error as SimulatedAppStoreError {
            let status: HTTPResponse.Status =
                switch error.code {
                case .notFound: .notFound
                case .invalidState: .conflict
                case .storage: .internalServerError
                default: .badRequest
                }
            return try failure(status, error.code.rawValue, error.message)
        } catch let error as ControlError {
            return try failure(error.status, error.code, error.message)
        }
    }

    func failure(_ status: HTTPResponse.Status, _ code: String, _ message: String) throws -> Response {
        let body = try JSONSerialization.data(withJSONObject: ["error": ["code": code, "message": message]], options: [.sortedKeys])
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

func json(_ value: some Encodable) throws -> Response {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    let body = try encoder.encode(value)
    return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
}
