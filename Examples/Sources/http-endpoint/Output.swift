import Foundation

/// Writes `line` to standard output at once (unbuffered: a script reading it sees it now).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
