import Foundation

/// Reads the YAML that `openapi.yaml` is written in, into `[String: Any]`, `[Any]`, `String`,
/// `Int`, `Bool` and `NSNull`: block mappings and sequences by indentation, `|` block scalars,
/// flow mappings and sequences (which may run over several lines), plain, single-quoted and
/// double-quoted scalars. Enough for the tests to read the document as a client generator
/// would, without a YAML package.
enum YAMLSubset {
    struct Failure: Error, CustomStringConvertible { let description: String }

    static func parse(_ text: String) throws -> Any {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var reader = Reader(lines: lines)
        return try reader.block(indent: 0)
    }

    private struct Reader {
        var lines: [String]
        var index = 0

        static func indent(of line: String) -> Int { line.prefix { $0 == " " }.count }
        static func isBlank(_ line: String) -> Bool {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.isEmpty || trimmed.hasPrefix("#")
        }

        mutating func skipBlank() { while index < lines.count, Self.isBlank(lines[index]) { index += 1 } }

        /// The mapping or sequence whose lines are indented `indent`.
        mutating func block(indent: Int) throws -> Any {
            skipBlank()
            guard index < lines.count else { return NSNull() }
            let first = lines[index].dropFirst(indent)
            if first.hasPrefix("- ") || first == "-" {
                var items: [Any] = []
                while true {
                    skipBlank()
                    guard index < lines.count else { break }
                    let line = lines[index]
                    guard Self.indent(of: line) == indent, line.dropFirst(indent).hasPrefix("-") else { break }
                    let rest = String(line.dropFirst(indent + 2))
                    if Self.splitKey(rest) != nil, !rest.hasPrefix("{"), !rest.hasPrefix("[") {
                        // "- key: value" opens a mapping whose other keys sit under the key.
                        lines[index] = String(repeating: " ", count: indent + 2) + rest
                        items.append(try block(indent: indent + 2))
                    } else {
                        index += 1
                        items.append(try value(of: rest, keyIndent: indent))
                    }
                }
                return items
            }
            var mapping: [String: Any] = [:]
            while true {
                skipBlank()
                guard index < lines.count else { break }
                let line = lines[index]
                guard Self.indent(of: line) == indent else { break }
                guard let (key, rest) = Self.splitKey(String(line.dropFirst(indent))) else {
                    throw Failure(description: "line \(index + 1): no key in \(line)")
                }
                index += 1
                if rest.isEmpty {
                    skipBlank()
                    if index < lines.count, Self.indent(of: lines[index]) > indent {
                        mapping[key] = try block(indent: Self.indent(of: lines[index]))
                    } else if index < lines.count, Self.indent(of: lines[index]) == indent, lines[index].dropFirst(indent).hasPrefix("- ") {
                        mapping[key] = try block(indent: indent)
                    } else {
                        mapping[key] = NSNull()
                    }
                } else {
                    mapping[key] = try value(of: rest, keyIndent: indent)
                }
            }
            return mapping
        }

        /// A value after `key: ` (or `- `): a block scalar, a flow collection, or a scalar.
        mutating func value(of text: String, keyIndent: Int) throws -> Any {
            if text == "|" || text == "|-" || text == ">" {
                var body: [String] = []
                while index < lines.count, Self.isBlank(lines[index]) || Self.indent(of: lines[index]) > keyIndent {
                    body.append(lines[index].trimmingCharacters(in: .whitespaces))
                    index += 1
                }
                return body.joined(separator: "\n")
            }
            if text.hasPrefix("{") || text.hasPrefix("[") {
                var flow = text
                while !Self.balanced(flow), index < lines.count {
                    flow += " " + lines[index].trimmingCharacters(in: .whitespaces)
                    index += 1
                }
                var scanner = Flow(text: Array(flow))
                return try scanner.value()
            }
            var scanner = Flow(text: Array(text))
            return try scanner.scalar(inFlow: false)
        }

        static func balanced(_ text: String) -> Bool {
            var depth = 0
            var quote: Character?
            var previous: Character = " "
            for character in text {
                if let open = quote {
                    if character == open, !(open == "\"" && previous == "\\") { quote = nil }
                } else if character == "\"" || character == "'" {
                    quote = character
                } else if character == "{" || character == "[" {
                    depth += 1
                } else if character == "}" || character == "]" {
                    depth -= 1
                }
                previous = character
            }
            return depth == 0
        }

        /// `key: rest` or `key:`; the key may be quoted.
        static func splitKey(_ text: String) -> (String, String)? {
            var scanner = Flow(text: Array(text))
            guard let key = (try? scanner.scalar(inFlow: false, isKey: true)) as? String else { return nil }
            guard scanner.position < scanner.text.count, scanner.text[scanner.position] == ":" else { return nil }
            let after = scanner.position + 1
            guard after == scanner.text.count || scanner.text[after] == " " else { return nil }
            return (key, String(scanner.text[min(after + 1, scanner.text.count)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// A scanner of flow values: `{ k: v, … }`, `[ v, … ]` and scalars.
    private struct Flow {
        let text: [Character]
        var position = 0

        mutating func skipSpaces() { while position < text.count, text[position] == " " { position += 1 } }

        mutating func value() throws -> Any {
            skipSpaces()
            guard position < text.count else { return NSNull() }
            switch text[position] {
            case "{":
                position += 1
                var mapping: [String: Any] = [:]
                while true {
                    skipSpaces()
                    if position < text.count, text[position] == "}" {
                        position += 1
                        return mapping
                    }
                    guard let key = try scalar(inFlow: true, isKey: true) as? String else { throw Failure(description: "flow key in \(String(text))") }
                    skipSpaces()
                    guard position < text.count, text[position] == ":" else { throw Failure(description: "no : after \(key) in \(String(text))") }
                    position += 1
                    mapping[key] = try value()
                    skipSpaces()
                    if position < text.count, text[position] == "," { position += 1 }
                }
            case "[":
                position += 1
                var items: [Any] = []
                while true {
                    skipSpaces()
                    if position < text.count, text[position] == "]" {
                        position += 1
                        return items
                    }
                    items.append(try value())
                    skipSpaces()
                    if position < text.count, text[position] == "," { position += 1 }
                }
            default:
                return try scalar(inFlow: true)
            }
        }

        /// A quoted or plain scalar; in flow, a plain one ends at `,`, `}`, `]` (and `: ` for a key).
        mutating func scalar(inFlow: Bool, isKey: Bool = false) throws -> Any {
            skipSpaces()
            guard position < text.count else { return "" }
            if text[position] == "'" {
                var result = ""
                position += 1
                while position < text.count {
                    if text[position] == "'" {
                        if position + 1 < text.count, text[position + 1] == "'" {
                            result.append("'")
                            position += 2
                            continue
                        }
                        position += 1
                        return result
                    }
                    result.append(text[position])
                    position += 1
                }
                throw Failure(description: "unterminated ' in \(String(text))")
            }
            if text[position] == "\"" {
                var result = ""
                position += 1
                while position < text.count {
                    let character = text[position]
                    if character == "\"" {
                        position += 1
                        return result
                    }
                    if character == "\\", position + 1 < text.count {
                        let escaped = text[position + 1]
                        position += 2
                        switch escaped {
                        case "n": result.append("\n")
                        case "t": result.append("\t")
                        case "u":
                            let hex = String(text[position..<min(position + 4, text.count)])
                            guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                                throw Failure(description: "bad \\u in \(String(text))")
                            }
                            result.unicodeScalars.append(scalar)
                            position += 4
                        default: result.append(escaped)
                        }
                        continue
                    }
                    result.append(character)
                    position += 1
                }
                throw Failure(description: "unterminated \" in \(String(text))")
            }
            var result = ""
            while position < text.count {
                let character = text[position]
                if inFlow, character == "," || character == "}" || character == "]" { break }
                if isKey || inFlow, character == ":", position + 1 == text.count || text[position + 1] == " " { break }
                result.append(character)
                position += 1
            }
            result = result.trimmingCharacters(in: .whitespaces)
            if isKey { return result }
            switch result {
            case "true": return true
            case "false": return false
            case "null", "~": return NSNull()
            default: return Int(result) ?? result
            }
        }
    }
}
