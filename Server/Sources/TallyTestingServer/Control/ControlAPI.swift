import Hummingbird
import TallyTesting

/// `/control/…`: buy (StoreKit 2, or StoreKit 1 on a device, with its app receipt), approve or
/// decline Ask to Buy, refund, advance time, expire, list transactions, read and refresh a
/// device's app receipt. JSON in and out, snake_case; errors as `{"error":{"code","message"}}`
/// (``ControlErrorMiddleware``). One controller per concern; docs/simulated-app-store.md lists
/// the routes.
struct ControlAPI: Sendable {
    let store: SimulatedAppStore

    func register(on router: Router<BasicRequestContext>) {
        router.group("control", context: ControlRequestContext.self)
            .add(middleware: ControlErrorMiddleware())
            .addRoutes(ControlStoreController(store: store).endpoints)
            .addRoutes(ControlPurchaseController(store: store).endpoints)
            .addRoutes(ControlTransactionController(store: store).endpoints)
            .addRoutes(ControlSubscriptionController(store: store).endpoints)
    }
}
