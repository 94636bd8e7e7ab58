import PushAttach
// Pipeline: the I/O edges of `pushattach prepare`.
//
//     Inputs/     INPUT arguments → InputEvent (items with their file:line, or problems)
//     Container/  the output folder: names, atomic writes, the lock
//     Manifest/   manifest.jsonl as items finish, manifest.json at the end, --resume
