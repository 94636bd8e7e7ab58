import Foundation
import TestSupport
import Testing

@testable import PushAttach

/// Many calls on one folder at once: the folder's lock is per process, shared by every call.
@Suite struct ConcurrencyTests {
    static let calls = 20

    @Test func twentyCallsOnOnePreparerAndOneFolderAreAllPrepared() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        // Held until all twenty are at the server at once: they really run concurrently.
        let gate = server.hold("/cat.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparer = Fixtures.preparer {
            $0.maxInFlight = Self.calls
            $0.perHost = Self.calls
        }
        let url = URL(string: server.url("/cat.jpg"))!

        let results = await withTaskGroup(of: Result<PreparedAttachment, AttachmentError>.self) { group in
            for _ in 0..<Self.calls {
                group.addTask {
                    do throws(AttachmentError) {
                        return .success(try await preparer.prepare(url, into: folder.url))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            let all = await gate.wait { $0.waiting == Self.calls }
            #expect(all != nil)
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }

        let prepared = results.compactMap { try? $0.get() }
        #expect(
            prepared.count == Self.calls, "\(results.compactMap { if case .failure(let e) = $0 { e } else { nil } })")
        #expect(Set(prepared.map(\.fileURL)).count == Self.calls)
        #expect(folder.names(in: "Images").count == Self.calls)
        await preparer.waitUntilIdle()
        #expect(folder.spoolLeftovers.isEmpty, "\(folder.spoolLeftovers)")
    }

    @Test func twentyPreparersOnOneFolderAreAllPrepared() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        let jpeg = try Corpus.data(Fixtures.jpeg)
        let gate = server.hold("/cat.jpg", .bytes(jpeg, contentType: "image/jpeg"))
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let preparers = (0..<Self.calls).map { _ in Fixtures.preparer { $0.cpuThreads = 1 } }
        let url = URL(string: server.url("/cat.jpg"))!

        let results = await withTaskGroup(of: Result<PreparedAttachment, AttachmentError>.self) { group in
            for preparer in preparers {
                group.addTask {
                    do throws(AttachmentError) {
                        return .success(try await preparer.prepare(url, into: folder.url))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            let all = await gate.wait { $0.waiting == Self.calls }
            #expect(all != nil)
            gate.open()
            return await group.reduce(into: []) { $0.append($1) }
        }

        let failures = results.compactMap { if case .failure(let e) = $0 { e } else { nil } }
        #expect(failures.isEmpty, "\(failures)")
        #expect(folder.names(in: "Images").count == Self.calls)
        for preparer in preparers { await preparer.waitUntilIdle() }
        // The last call released the folder: a fresh preparer after them takes it again.
        let again = try await Fixtures.preparer().prepare(url, into: folder.url)
        #expect(FileManager.default.fileExists(atPath: again.fileURL.path))
    }
}
