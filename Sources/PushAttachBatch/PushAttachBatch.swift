// PushAttachBatch: the batch runner, what `pushattach prepare` runs, as a library beside
// `PushAttach`. Every item goes through PushAttach's per-item path (`ItemPipeline`); around it:
//
//     Inputs/         INPUT arguments → InputEvent (items with their file:line, or problems)
//     Orchestration/  the run: admission, dedupe of repeated URLs, events, the summary
//     Manifest/       manifest.jsonl as items finish, manifest.json at the end, --resume, merge
//     Report/         report.html from the manifest
//     Rewrite/        push payloads rewritten to point at the prepared files
//     Batch/          the public API: AttachmentBatch, BatchInput, BatchEntry, BatchReport,
//                     AttachmentMerge
//
// It stands on PushAttach's public API, on the per-item path's and the container's
// `package` declarations (ItemPipeline, Container, ManifestEntry), and on SystemSupport.
