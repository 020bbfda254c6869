public import Foundation
public import TallySQL

/// The schema a database ends with, as text, checked against a reviewed snapshot file in the
/// repository: a migration that changes the schema in a way nobody looked at fails a test.
///
/// SQLite's schema is its `sqlite_master` (each object's SQL, whitespace normalised, one column
/// or constraint a line); PostgreSQL's is read back from `information_schema.columns`,
/// `pg_constraint`, `pg_indexes`, `pg_trigger` and `pg_proc`, with the schema name taken out.
///
/// ```swift
/// let schema = try await SchemaSnapshot.sqlite(database)
/// let difference = try SchemaSnapshot.difference(schema, snapshot: file, test: "SchemaSnapshotTests")
/// #expect(difference == nil, Comment(rawValue: difference ?? ""))
/// ```
public enum SchemaSnapshot: Sendable {
    /// The environment variable that, set to `1`, writes the snapshot files instead of comparing.
    public static let updateVariable = "TALLY_UPDATE_SCHEMA_SNAPSHOT"

    /// Whether this run writes the snapshots (``updateVariable`` is `1`).
    public static var updating: Bool { ProcessInfo.processInfo.environment[updateVariable] == "1" }

    /// The schema of an SQLite database: tables, indexes, triggers and views, by kind and name.
    /// - Parameter database: the database to read.
    /// - Returns: its objects' SQL, one statement each, ending with `;`.
    /// - Throws: what the database throws.
    public static func sqlite(_ database: any SQLDatabase) async throws -> String {
        let rows = try await database.read { executor in
            try await executor.query(
                """
                SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
                ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'trigger' THEN 2 ELSE 3 END, name
                """, [])
        }
        return try rows.map { row in layout(try row.text(SQLColumn("sql"))) + ";\n" }.joined()
    }

    /// The schema of the PostgreSQL schema the connection's `search_path` names first: each
    /// table with its columns and constraints, then its indexes, triggers and functions.
    /// - Parameter database: the database to read.
    /// - Returns: the schema as SQL-like statements, ending with `;`.
    /// - Throws: what the database throws.
    public static func postgres(_ database: any SQLDatabase) async throws -> String {
        try await database.read { executor in
            let schema = try await executor.query("SELECT current_schema()::text AS name", []).first?.text(SQLColumn("name")) ?? "public"
            func unqualified(_ text: String) -> String { layout(text.replacingOccurrences(of: "\(schema).", with: "")) }

            let columns = try await executor.query(
                """
                SELECT table_name::text AS table_name, column_name::text AS column_name, data_type::text AS data_type,
                       is_nullable::text AS is_nullable, column_default::text AS column_default,
                       COALESCE(identity_generation::text, '') AS identity_generation
                FROM information_schema.columns WHERE table_schema = current_schema()
                ORDER BY table_name, ordinal_position
                """, [])
            // NOT NULL is said by the columns (PostgreSQL 18 lists it as constraints too).
            let constraints = try await executor.query(
                """
                SELECT c.relname::text AS table_name, k.conname::text AS name, pg_get_constraintdef(k.oid) AS definition
                FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND k.contype <> 'n'
                ORDER BY c.relname, k.conname
                """, [])
            let indexes = try await executor.query(
                "SELECT indexname::text AS name, indexdef::text AS definition FROM pg_indexes WHERE schemaname = current_schema() ORDER BY tablename, indexname",
                [])
            let triggers = try await executor.query(
                """
                SELECT t.tgname::text AS name, pg_get_triggerdef(t.oid) AS definition
                FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND NOT t.tgisinternal
                ORDER BY c.relname, t.tgname
                """, [])
            let functions = try await executor.query(
                """
                SELECT p.proname::text AS name, pg_get_functiondef(p.oid) AS definition
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname = current_schema() ORDER BY p.proname
                """, [])

            var tables: [(name: String, parts: [String])] = []
            for row in columns {
                let table = try row.text(SQLColumn("table_name"))
                var column = "\(try row.text(SQLColumn("column_name"))) \(try row.text(SQLColumn("data_type")))"
                let identity = try row.text(SQLColumn("identity_generation"))
                if !identity.isEmpty { column += " GENERATED \(identity) AS IDENTITY" }
                if try row.text(SQLColumn("is_nullable")) == "NO" { column += " NOT NULL" }
                if let value = try row.optionalText(SQLColumn("column_default")) { column += " DEFAULT \(value)" }
                if tables.last?.name == table {
                    tables[tables.count - 1].parts.append(column)
                } else {
                    tables.append((table, [column]))
                }
            }
            for row in constraints {
                let table = try row.text(SQLColumn("table_name"))
                let constraint = "CONSTRAINT \(try row.text(SQLColumn("name"))) \(unqualified(try row.text(SQLColumn("definition"))))"
                guard let index = tables.firstIndex(where: { $0.name == table }) else { continue }
                tables[index].parts.append(constraint)
            }
            var text = tables.map { "CREATE TABLE \($0.name) (\n" + $0.parts.map { "    \($0)" }.joined(separator: ",\n") + "\n);\n" }.joined()
            for row in indexes + triggers + functions {
                text += unqualified(try row.text(SQLColumn("definition"))) + ";\n"
            }
            return text
        }
    }

    /// Compares `schema` with the snapshot file, or writes the file when ``updating``.
    /// - Parameters:
    ///   - schema: the schema the database ended with.
    ///   - snapshot: the reviewed snapshot file.
    ///   - test: how to run the test that compares (named in the message).
    /// - Returns: nil when they are the same (or the file was written); otherwise the lines
    ///   that differ (`-` in the snapshot only, `+` in the database only) and how to accept them.
    /// - Throws: when the file cannot be written.
    public static func difference(_ schema: String, snapshot: URL, test: String) throws -> String? {
        if updating {
            try FileManager.default.createDirectory(at: snapshot.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(schema.utf8).write(to: snapshot)
            return nil
        }
        let reviewed = (try? String(contentsOf: snapshot, encoding: .utf8)) ?? ""
        guard reviewed != schema else { return nil }
        let relative = snapshot.path.replacingOccurrences(of: Repository.root.path + "/", with: "")
        return """
            The schema differs from the reviewed snapshot \(relative) (- snapshot, + database):
            \(lineDifference(from: reviewed, to: schema))
            If the change is intended, review it and write the snapshot again with
            \(updateVariable)=1 \(test), then commit the file.
            """
    }

    /// The lines that differ between two texts, with two lines of context around each change.
    static func lineDifference(from old: String, to new: String) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Longest common subsequence, from the end.
        var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [(mark: Character, text: String)] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                lines.append((" ", a[i]))
                i += 1
                j += 1
            } else if j < b.count, i == a.count || common[i][j + 1] > common[i + 1][j] {
                lines.append(("+", b[j]))
                j += 1
            } else {
                lines.append(("-", a[i]))
                i += 1
            }
        }
        let changed = lines.indices.filter { lines[$0].mark != " " }
        let shown = Set(changed.flatMap { max(0, $0 - 2)...min(lines.count - 1, $0 + 2) })
        var output: [String] = []
        for index in lines.indices where shown.contains(index) {
            if index > 0, !shown.contains(index - 1), !output.isEmpty { output.append("  …") }
            output.append("\(lines[index].mark) \(lines[index].text)")
        }
        return output.joined(separator: "\n")
    }

    /// One statement with its whitespace normalised, and a table's columns and constraints one
    /// a line: the same schema reads the same however its SQL was indented or altered.
    static func layout(_ sql: String) -> String {
        var flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for (from, to) in [("( ", "("), (" )", ")"), (" ,", ",")] {
            while flat.contains(from) { flat = flat.replacingOccurrences(of: from, with: to) }
        }
        guard flat.hasPrefix("CREATE TABLE"), let open = flat.firstIndex(of: "("), flat.hasSuffix(")") else { return flat }
        var parts: [String] = []
        var part = ""
        var depth = 0
        for character in flat[flat.index(after: open)..<flat.index(before: flat.endIndex)] {
            switch character {
            case "(": depth += 1
            case ")": depth -= 1
            case "," where depth == 0:
                parts.append(part.trimmingCharacters(in: .whitespaces))
                part = ""
                continue
            default: break
            }
            part.append(character)
        }
        parts.append(part.trimmingCharacters(in: .whitespaces))
        return flat[..<open].trimmingCharacters(in: .whitespaces) + " (\n" + parts.map { "    \($0)" }.joined(separator: ",\n") + "\n)"
    }
}
