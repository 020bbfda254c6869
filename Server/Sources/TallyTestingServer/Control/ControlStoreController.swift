import Foundation
import Hummingbird
import NIOCore
import TallyCore
import TallyTesting

/// The store itself: its status and settings, its certificates, its products, its clock and
/// the notifications it sent.
struct ControlStoreController: Sendable {
    let store: SimulatedAppStore

    var endpoints: RouteCollection<ControlRequestContext> {
        RouteCollection(context: ControlRequestContext.self)
            .get("status") { _, _ in try await status() }
            .put("settings") { request, context in try await updateSettings(try await request.decode(as: SettingsBody.self, context: context)) }
            .get("root.pem") { _, _ in Self.pem(try store.authority.root.serializeAsPEM().pemString) }
            .get("receipt-root.pem") { _, _ in Self.pem(try await store.receiptAuthority().root.serializeAsPEM().pemString) }
            .get("products") { _, _ in store.configuration.catalog.products.map(ProductBody.init) }
            .post("time/advance") { request, context in try await advance(try await request.decode(as: AdvanceBody.self, context: context)) }
            .get("notifications") { _, _ in await store.notifications.map(NotificationBody.init) }
            .post("notifications/test") { _, _ in TestNotificationBody(token: try await store.requestTestNotification()) }
    }

    static func pem(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/x-pem-file"], body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    struct StatusBody: ResponseEncodable {
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

    func updateSettings(_ body: SettingsBody) async throws -> StatusBody {
        if let failure = body.purchaseFailure, !failure.isEmpty, !ControlPurchaseController.failures.contains(failure) {
            throw ControlError.invalid("purchase_failure must be \"\" or one of \(ControlPurchaseController.failures.sorted())")
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

    struct AdvanceBody: Decodable { var seconds: Int64 }

    func advance(_ body: AdvanceBody) async throws -> StatusBody {
        guard body.seconds >= 0, body.seconds <= 100 * 366 * 86_400 else {
            throw ControlError.invalid("seconds must be between 0 and 100 years")
        }
        try await store.advance(by: .seconds(body.seconds))
        return try await status()
    }

    struct ProductBody: ResponseEncodable {
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

    struct NotificationBody: ResponseEncodable {
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

    /// The `TEST` notification's token, as Apple's endpoint answers it.
    struct TestNotificationBody: ResponseEncodable { var token: String }
}
