import Hummingbird

/// The context of the control API's routes: bodies read as the Tally API reads them
/// (``ControlRequestDecoder``), answers written as snake_case JSON (``ControlResponseEncoder``).
struct ControlRequestContext: ChildRequestContext {
    var coreContext: CoreRequestContextStorage

    init(context: BasicRequestContext) {
        coreContext = context.coreContext
    }

    var requestDecoder: ControlRequestDecoder { ControlRequestDecoder() }
    var responseEncoder: ControlResponseEncoder { ControlResponseEncoder() }
    var maxUploadSize: Int { AppStoreSimulatorRouter.maximumBodySize }
}
