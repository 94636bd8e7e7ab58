import Foundation

/// A JSON value as parsed, with integers kept apart from booleans and other numbers.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? c.decode(Double.self) {
            self = .number(value)
        } else if let value = try? c.decode(String.self) {
            self = .string(value)
        } else if let value = try? c.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    static func parse(_ data: Data) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: data) }

    /// The JSON Schema type names this value has ("integer" is a "number" too).
    var typeNames: Set<String> {
        switch self {
        case .null: ["null"]
        case .bool: ["boolean"]
        case .integer: ["integer", "number"]
        case .number: ["number"]
        case .string: ["string"]
        case .array: ["array"]
        case .object: ["object"]
        }
    }
}

/// The part of JSON Schema (draft 2020-12) that `docs/manifest.schema.json` uses, checked by
/// hand: `type`, `const`, `enum`, `required`, `properties`, `additionalProperties: false`,
/// `items`, `minimum`, `pattern` and local `$ref`s (`#/$defs/name`). Any other keyword is
/// reported as a problem, so the schema cannot use one this check would silently skip.
struct SchemaCheck {
    let root: JSONValue

    /// Keywords that only document.
    private static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs"]

    /// Every way `value` breaks the schema, as "path: problem"; empty when it conforms.
    func problems(_ value: JSONValue) -> [String] { check(value, against: root, at: "$") }

    /// Every way `value` breaks the definition `#/$defs/<name>`.
    func problems(_ value: JSONValue, definition name: String) -> [String] {
        check(value, against: .object(["$ref": .string("#/$defs/\(name)")]), at: "$")
    }

    private func check(_ value: JSONValue, against schema: JSONValue, at path: String) -> [String] {
        guard case .object(let keywords) = schema else { return ["\(path): the schema here is not an object"] }
        var problems: [String] = []
        for (keyword, argument) in keywords {
            switch (keyword, argument) {
            case ("$ref", .string(let reference)):
                let prefix = "#/$defs/"
                guard reference.hasPrefix(prefix), case .object(let top) = root, case .object(let defs)? = top["$defs"],
                    let target = defs[String(reference.dropFirst(prefix.count))]
                else {
                    problems.append("\(path): cannot resolve $ref \(reference)")
                    continue
                }
                problems += check(value, against: target, at: path)
            case ("type", .string(let name)):
                if !value.typeNames.contains(name) { problems.append("\(path): \(value) is not \(name)") }
            case ("type", .array(let names)):
                let allowed = Set(names.compactMap { if case .string(let name) = $0 { name } else { nil } })
                if value.typeNames.isDisjoint(with: allowed) {
                    problems.append("\(path): \(value) is none of \(allowed.sorted())")
                }
            case ("const", let expected):
                if value != expected { problems.append("\(path): \(value) is not \(expected)") }
            case ("enum", .array(let allowed)):
                if !allowed.contains(value) { problems.append("\(path): \(value) is not one of \(allowed)") }
            case ("required", .array(let names)):
                guard case .object(let members) = value else { continue }
                for case .string(let name) in names where members[name] == nil {
                    problems.append("\(path): missing \(name)")
                }
            case ("properties", .object(let properties)):
                guard case .object(let members) = value else { continue }
                for (name, member) in members {
                    if let property = properties[name] {
                        problems += check(member, against: property, at: "\(path).\(name)")
                    }
                }
            case ("additionalProperties", .bool(false)):
                guard case .object(let members) = value, case .object(let properties)? = keywords["properties"] else {
                    continue
                }
                for name in members.keys where properties[name] == nil {
                    problems.append("\(path): unexpected key \(name)")
                }
            case ("items", let itemSchema):
                guard case .array(let items) = value else { continue }
                for (number, item) in items.enumerated() {
                    problems += check(item, against: itemSchema, at: "\(path)[\(number)]")
                }
            case ("minimum", .integer(let minimum)):
                if case .integer(let number) = value, number < minimum {
                    problems.append("\(path): \(number) is under \(minimum)")
                }
            case ("pattern", .string(let pattern)):
                if case .string(let text) = value, text.range(of: pattern, options: .regularExpression) == nil {
                    problems.append("\(path): \"\(text)\" does not match \(pattern)")
                }
            default:
                if !Self.annotations.contains(keyword) {
                    problems.append("\(path): the check does not know the keyword \(keyword)")
                }
            }
        }
        return problems
    }
}
