// SystemSupport: what the per-item path (`PushAttach`) and the batch runner (`PushAttachBatch`)
// both stand on, below the stages' own logic.
//
//     Files/    the one wrapper of the C library's file calls (`SystemCall`), folders opened once
//               and used by descriptor (`DirectoryHandle`), atomic writes, `ContainerError`
//     Hashing/  SHA-1 (for UUID v5 names), SHA-256 (the manifest, shards), HMAC-SHA-256 (links),
//               all by libcrypto
//     Budgets/  the admission budget items reserve memory from, and the worker threads
//
// Only `ContainerError` is public (a user of the library sees it through `PushAttach`, as
// `AttachmentError.Underlying.container`); everything else is `package`.
