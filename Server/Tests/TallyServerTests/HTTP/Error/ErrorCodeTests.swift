import Foundation
import Hummingbird
import ServerTestSupport
import TallyCore
import TallyServer
import Testing

/// Every error code declares its HTTP status, the list of codes is complete, and the OpenAPI
/// document lists exactly those codes.
@Suite struct ErrorCodeTests {
    /// The codes `TallyErrorCode.swift` declares, with the status each declares:
    /// `public static let name = Self("raw_value", status: 400)`.
    static func declaredInSource() throws -> [(rawValue: String, status: Int)] {
        let folder = Repository.root.appendingPathComponent("Sources/TallyCore")
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        let file = try #require(files.first { $0.lastPathComponent == "TallyErrorCode.swift" }, "no TallyErrorCode.swift under \(folder.path)")
        let source = try String(contentsOf: file, encoding: .utf8)
        let declaration = try Regex(#"static let \w+ = Self\("([a-z_]+)", status: (\d+)\)"#)
        return source.matches(of: declaration).map { match in
            (String(match.output[1].substring ?? ""), Int(match.output[2].substring ?? "") ?? 0)
        }
    }

    /// The values of the OpenAPI document's `ErrorCode` enumeration, in its order.
    static func documented() throws -> [String] {
        let spec = try String(contentsOf: Repository.server.appendingPathComponent("Sources/TallyServer/Resources/openapi.yaml"), encoding: .utf8)
        let lines = spec.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(lines.firstIndex { $0 == "    ErrorCode:" })
        var list = ""
        var inList = false
        for line in lines[start...] {
            if !inList, let open = line.range(of: "enum: [") { inList = true; list += line[open.upperBound...] } else if inList { list += line }
            if inList, list.contains("]") { break }
        }
        return list.prefix { $0 != "]" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test func everyDeclaredCodeIsInTheListWithItsStatus() throws {
        let declared = try Self.declaredInSource()
        #expect(declared.count >= 21)
        #expect(declared.map(\.rawValue) == TallyErrorCode.all.map(\.rawValue))
        #expect(declared.map(\.status) == TallyErrorCode.all.map(\.status))
    }

    @Test(arguments: TallyErrorCode.all)
    func everyCodeHasAnErrorStatusTheServerAnswers(code: TallyErrorCode) {
        #expect((400...599).contains(code.status), "\(code)")
        #expect(TallyAPIError(code, "").status == HTTPResponse.Status(code: code.status))
        // Read back from an answer, the code keeps its status.
        #expect(TallyErrorCode(rawValue: code.rawValue).status == code.status)
    }

    @Test func codesAreUnique() {
        #expect(Set(TallyErrorCode.all.map(\.rawValue)).count == TallyErrorCode.all.count)
    }

    @Test func theOpenAPIDocumentListsEveryCodeAndNoOther() throws {
        #expect(try Self.documented() == TallyErrorCode.all.map(\.rawValue))
    }

    @Test func aCodeThisVersionDoesNotKnowIsReadAsAServerFault() throws {
        let detail = try TallyAPI.decoder().decode(APIErrorBody.self, from: Data(#"{"error":{"code":"from_a_newer_server","message":"m"}}"#.utf8))
        #expect(detail.error.code.rawValue == "from_a_newer_server")
        #expect(detail.error.code.status == 500)
        #expect(detail.error.code != .internalError)
    }
}
