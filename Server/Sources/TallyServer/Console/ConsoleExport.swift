import HTTPTypes
import Hummingbird
import NIOCore

/// The console's CSV exports: each is written to the audit log, then streamed page after
/// page as the database gives them, so an export of any size holds one page in memory.
/// The routes are behind ``ConsoleExportGuard``.
struct ConsoleExport: Sendable {
    let console: ConsoleStore

    /// The CSV answer `tally-NAME.csv`, audited as the operator's export of `name`.
    /// - Parameters:
    ///   - name: what is exported, as the audit log and the file name say.
    ///   - detail: the filters, for the audit log.
    ///   - header: the columns.
    ///   - page: takes where to start (nil for the first page) and gives the lines and where
    ///     the next page starts (nil after the last).
    /// - Throws: what the audit log's write throws; then nothing is exported.
    func answer<Cursor: Sendable>(
        _ name: String, for context: ConsoleOperatorContext, detail: String? = nil, header: [String],
        page: @escaping @Sendable (Cursor?) async throws -> (lines: [[String?]], next: Cursor?)
    ) async throws -> Response {
        try await console.audit(actor: context.actor, action: "export", target: name, before: nil, after: nil, detail: detail)
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"tally-\(name).csv\""
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: ConsoleFormat.csvLine(header)))
                var cursor: Cursor?
                repeat {
                    let (lines, next) = try await page(cursor)
                    try await writer.write(ByteBuffer(string: lines.map(ConsoleFormat.csvLine).joined()))
                    cursor = next
                } while cursor != nil
                try await writer.finish(nil)
            })
    }
}
