import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NIOCore
import TallyCore

/// The console's pages as HTML: the templates, what every page's layout reads, and the page
/// that answers an error.
struct ConsolePages: Sendable {
    let library: MustacheLibrary

    init() {
        do {
            library = try ConsoleTemplates.library()
        } catch {
            // The templates are constants of this module; a test renders every one.
            preconditionFailure("the console's templates do not parse: \(error)")
        }
    }

    /// What every page's layout reads: the language, the texts, the navigation and the
    /// operator when one is signed in.
    func view(_ request: Request, _ context: some ConsolePageContext, page: String, title: String) -> [String: Any] {
        let language = context.language
        var view: [String: Any] = [
            "lang": language.rawValue, "t": ConsoleText.table(language), "page": page, "title": title,
            "langEN": ConsoleQuery.withLanguage(request, "en"), "langUK": ConsoleQuery.withLanguage(request, "uk"),
        ]
        if let session = context.signedInSession {
            view["signedIn"] = true
            view["actor"] = session.actor
            view["readOnly"] = session.role == .readOnly
            view["csrf"] = session.csrfToken
            let current = [
                "overview": "overview", "metrics": "metrics", "transactions": "transactions", "ledger": "ledger", "products": "products",
                "notifications": "notifications", "notification": "notifications", "audit": "audit",
            ][page]
            view["nav"] = [
                ("overview", "/console"), ("metrics", "/console/metrics"), ("transactions", "/console/transactions"), ("ledger", "/console/ledger"),
                ("products", "/console/products"), ("notifications", "/console/notifications"), ("audit", "/console/audit"),
            ].map { item -> [String: Any] in
                ["id": item.0, "href": item.1, "label": ConsoleText.text("nav_\(item.0)", language), "current": item.0 == current]
            }
        } else {
            view["readOnly"] = true
        }
        return view
    }

    /// The template rendered with `view`.
    func html(_ view: [String: Any], _ template: String, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let text = library.render(view, withTemplate: template) else {
            preconditionFailure("no console template \(template)")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    /// A list page: `fill` adds the rows and paging links; a filter the query refuses shows the
    /// page with the reason and no rows (400), so the form is there to correct it.
    func list(
        _ view: [String: Any], _ template: String, _ language: ConsoleText.Language, _ fill: (inout [String: Any]) async throws -> Void
    ) async throws -> Response {
        var view = view
        do {
            do {
                try await fill(&view)
            } catch let error as StorageError {
                throw TallyAPIError(error)
            }
            return try html(view, template)
        } catch let error as TallyAPIError where error.code == .invalidRequest {
            view["error"] = "\(ConsoleText.text("filter_invalid", language)): \(error.message)"
            view["rows"] = [[String: Any]]()
            return try html(view, template, status: .badRequest)
        }
    }

    /// The page for an error: a refusal says why; a failure of the database says to try again.
    func failure(_ error: any Error, request: Request, context: some ConsolePageContext) -> Response {
        let language = context.language
        // A storage refusal reads as the API's refusal of the same code.
        let error = (error as? StorageError).map { TallyAPIError($0) as any Error } ?? error
        let status: HTTPResponse.Status
        let message: String
        switch error {
        case ConsoleRefusal.csrf:
            (status, message) = (.forbidden, ConsoleText.text("csrf_refused", language))
        case ConsoleRefusal.exportToken:
            (status, message) = (.forbidden, ConsoleText.text("export_refused", language))
        case ConsoleRefusal.readOnly:
            (status, message) = (.forbidden, ConsoleText.text("forbidden_read_only", language))
        case ConsoleRefusal.notFound:
            (status, message) = (.notFound, ConsoleText.text("not_found", language))
        case ConsoleRefusal.busy:
            (status, message) = (.serviceUnavailable, ConsoleText.text("busy", language))
        case let error as TallyAPIError where error.status.code < 500:
            (status, message) = (.init(code: error.status.code), Self.message(error, language))
        case let error as any HTTPResponseError where error.status.code < 500:
            (status, message) = (error.status, ConsoleText.text("input_invalid", language))
        default:
            (status, message) = (.serviceUnavailable, ConsoleText.text("unavailable", language))
        }
        var page = view(request, context, page: "message", title: ConsoleText.text("error_title", language))
        page["error"] = message
        page["backHref"] = context.signedInSession == nil ? "/console/login" : "/console"
        return (try? html(page, "message", status: status)) ?? Response(status: status)
    }

    /// A refusal in the page's language: the known ones by their code, the rest with the
    /// detail the storage gave (ids and field names, which read the same in both).
    static func message(_ error: TallyAPIError, _ language: ConsoleText.Language) -> String {
        let keys: [TallyAPIError.Code: String] = [
            .notFound: "not_found", .invalidAmount: "amount_invalid", .unknownCurrency: "currency_unknown",
            .invalidIdempotencyKey: "key_invalid", .idempotencyKeyReused: "key_reused", .rateLimited: "rate_limited",
        ]
        if let key = keys[error.code] { return ConsoleText.text(key, language) }
        return "\(ConsoleText.text("input_invalid", language)): \(error.message)"
    }

    /// A select's option.
    static func option(_ value: String, _ label: String, _ selected: String?) -> [String: Any] {
        ["value": value, "label": label, "selected": value == selected]
    }

    /// The App Store's environments, as transactions name them.
    static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

    static func stylesheet() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/css; charset=utf-8"
        headers[.cacheControl] = "public, max-age=3600"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: ConsoleTemplates.stylesheet)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        return Response(status: .seeOther, headers: headers)
    }
}
