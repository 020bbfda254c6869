import Hummingbird
import TallyCore

/// `POST /v1/users`: a new user and their token, with the catalog's sign-up credits.
///
/// Anyone may sign up. With the secret key, the app's server may name the user
/// (`app_user_id`), and posting the same name again returns that user with a new token.
struct UserController {
    let users: UserStore

    var endpoints: RouteCollection<TallyRequestContext> {
        RouteCollection(context: TallyRequestContext.self)
            .post(use: create)
    }

    /// 201 with the new user, or 200 with the existing one of this `app_user_id`. The body is optional.
    func create(_ request: Request, context: TallyRequestContext) async throws -> EditedResponse<CreateUserResponse> {
        let buffer = try await TallyRequestDecoder.body(of: request, upTo: context.maxUploadSize)
        let body = buffer.readableBytes > 0 ? try context.requestDecoder.decode(CreateUserRequest.self, from: buffer) : CreateUserRequest()
        if let appUserID = body.appUserID {
            guard context.hasSecretKey else {
                throw TallyAPIError(.unauthorized, "app_user_id needs the secret key: only the app's server may name its users")
            }
            guard APIPattern.isIdentifier(appUserID) else {
                throw TallyAPIError(.invalidRequest, "app_user_id must be 1 to 128 characters, none of them a control character")
            }
        }
        let token = UserToken.new()
        let (user, created, granted) = try await users.createUser(appUserID: body.appUserID, tokenHash: UserToken.hash(token))
        let response = CreateUserResponse(userID: user.id, appAccountToken: user.appAccountToken, userToken: token, created: created, granted: granted)
        return EditedResponse(status: created ? .created : .ok, response: response)
    }
}
