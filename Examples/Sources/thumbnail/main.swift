// Makes a small JPEG from image bytes (JPEG, PNG or WebP), decoded straight at a reduced scale.
//
//     thumbnail [--max-side N] INPUT OUTPUT
import ExampleSupport
import Foundation
import PushAttach

let usage = "thumbnail [--max-side N] INPUT OUTPUT"
let arguments = Arguments(usage: usage, valued: ["--max-side"])
guard arguments.positional.count == 2 else { Arguments.fail("expected an input and an output file", usage: usage) }
guard let maxSide = Int(arguments.options["--max-side"] ?? "256") else {
    Arguments.fail("--max-side takes a number", usage: usage)
}
let input = URL(fileURLWithPath: arguments.positional[0])
let output = URL(fileURLWithPath: arguments.positional[1])

let bytes: Data
do { bytes = try Data(contentsOf: input) } catch {
    print("cannot read \(input.path): \(error.localizedDescription)")
    exit(2)
}
do {
    let thumb = try await Thumbnail.image(from: bytes, maxSide: maxSide)
    try thumb.data.write(to: output)
    print("thumbnail \(thumb.size) \(thumb.format) \(thumb.data.count) bytes -> \(output.path)")
    for step in thumb.steps { print("  step: \(step)") }
} catch let error as AttachmentError {
    print("failed \(error.kind): \(error.reason)")
    exit(1)
} catch {
    print("cannot write \(output.path): \(error.localizedDescription)")
    exit(2)
}
