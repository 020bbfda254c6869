import Foundation
import HTTPTypes
public import Hummingbird
import TallyCore
public import TallyTesting

/// The HTTP face of a `SimulatedAppStore`: the fake App Store Server API under Apple's
/// paths (`/inApps/…`) and a control API (`/control/…`) that scripts and other languages use
/// to drive the store.
///
/// Bind it to loopback: the control API has no authentication, as a test tool on one machine.
public enum AppStoreSimulatorRouter: Sendable {
    /// The largest request body accepted.
    public static let maximumBodySize = 1 << 20

    /// The router, so a test can run the very same routes in memory.
    /// - Parameters:
    ///   - store: the store.
    ///   - credentials: who may call the App Store Server API.
    public static func build(store: SimulatedAppStore, credentials: ServerAPICredentials) -> Router<BasicRequestContext> {
        let router = Router()
        for method in [HTTPRequest.Method.get, .post, .put] {
            router.on("/inApps/**", method: method) { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: maximumBodySize)
                let query = request.uri.queryParameters.map { URLQueryItem(name: String($0.key), value: String($0.value)) }
                let apiRequest = ServerAPIRequest(
                    method: method.rawValue, path: request.uri.path, query: query,
                    authorization: request.headers[.authorization], body: Data(buffer: body))
                let response = await store.handleServerAPI(apiRequest, credentials: credentials)
                var headers: HTTPFields = [.contentType: response.contentType]
                for (name, value) in response.headers {
                    if let field = HTTPField.Name(name) { headers[field] = value }
                }
                return Response(status: .init(code: response.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: response.body)))
            }
        }
        ControlAPI(store: store).register(on: router)
        return router
    }
}

extension Data {
    init(buffer: ByteBuffer) {
        self = Data(buffer.readableBytesView)
    }
}
