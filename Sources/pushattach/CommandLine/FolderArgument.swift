import Foundation

/// The one DIR a command such as `merge` or `report` takes: parsed in `init`, checked in
/// `validate()`, with the same usage errors for each.
///
///     let command = "pushattach report"
///     container = try FolderArgument.only(arguments, command: command, missing: "name the container prepare wrote")
///     try FolderArgument.requireFolder(container, command: command)    // in validate()
enum FolderArgument {
    /// The single positional as a file URL; `UsageError` when there is none (`missing` says what
    /// to name) or more than one.
    static func only(_ arguments: ParsedArguments, command: String, missing: String) throws(UsageError) -> URL {
        guard let path = arguments.positionals.first else {
            throw UsageError(command: command, message: "no DIR given: \(missing)")
        }
        guard arguments.positionals.count == 1 else {
            throw UsageError(
                command: command, message: "unexpected argument '\(arguments.positionals[1])': one DIR at a time")
        }
        return URL(fileURLWithPath: path)
    }

    /// `UsageError` unless `folder` is an existing folder.
    static func requireFolder(_ folder: URL, command: String) throws(UsageError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw UsageError(command: command, message: "no such folder: \(folder.path)")
        }
    }
}
