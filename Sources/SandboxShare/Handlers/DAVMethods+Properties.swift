import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox

extension DAVMethods {
    /// Most items a `Depth: infinity` PROPFIND answers for, counted before any byte of the body: a
    /// larger tree is refused with 403 `propfind-finite-depth` (RFC 4918 §9.1), so one request
    /// cannot walk a whole volume. `Depth: 1` has no such bound: it is streamed, a batch at a time.
    static let maximumPropfindItems = 100_000

    /// PROPFIND: the properties of an item and, with `Depth: 1` or infinity (the default), of
    /// its members — hidden names and symlinks left out. 207 Multi-Status, streamed: the members
    /// are listed a batch at a time (``PropfindListing``) as the client takes the body, so memory
    /// stays flat however large the folder.
    ///
    /// A collection below the one named whose members cannot be listed (its path is too long for
    /// Linux, it may not be read) is reported alone, as a response with its href and the error's
    /// status (RFC 4918 §9.1), and the rest is answered.
    func propfind(_ path: SharePath, request: Request) async throws(SandboxError) -> Response {
        let depth = try Depth.parse(request.headers.fieldValue(.depth), default: .infinity)
        let query = try PropfindRequest.parse(try await xmlBody(of: request))
        let root = try existingItem(at: path)
        let listsMembers = root.isCollection && depth != .zero
        if listsMembers {
            // The count (Depth: infinity) or an open of the collection (Depth: 1) first, so that
            // a refusal or a collection whose members cannot be listed is the request's error.
            if depth == .infinity {
                try requireFiniteListing(of: root.path)
            } else {
                _ = try PropfindListing(
                    documents: documents, of: root.path, recursive: false, describing: false, logger: logger)
            }
        }
        let recursive = depth == .infinity
        let context = PropertyContext(locks: [], now: locks.now, volume: try volume())
        let methods = self
        let plan = PropfindPlan(query)
        let rootDead =
            plan.readsDeadProperties
            ? Result { () throws(SandboxError) in try properties.properties(at: root.path.containerPath) }
            : .success([:])
        // Each response is written straight into one buffer, sent whenever it holds about 64 KiB
        // (the writer waits while the client is slower than the listing, and the listing waits
        // with it: one batch of members at a time).
        let answer = ResponseBody { writer in
            var listing = listsMembers ? methods.listing(of: root.path, recursive: recursive) : nil
            var multistatus = Multistatus()
            var budget = ChecksumStore.requestBudget
            var batch = [ListedResponse(item: root, dead: rootDead, unlisted: nil)]
            repeat {
                for listed in batch {
                    var checksums: ContentChecksums? = nil
                    if plan.asksChecksums, !listed.item.isCollection {
                        checksums = await ChecksumStore.computed(
                            for: listed.item.path, in: methods.documents, dataProtection: methods.dataProtection,
                            budget: &budget, logger: methods.logger)
                    }
                    methods.append(listed, plan, context, checksums: checksums, to: &multistatus)
                    if multistatus.count >= Multistatus.flushSize {
                        try await writer.write(ByteBuffer(bytes: multistatus.takeBytes()))
                    }
                }
                batch.removeAll(keepingCapacity: true)
            } while methods.nextBatch(of: &listing, into: &batch, readingDeadProperties: plan.readsDeadProperties)
            var last = ByteBuffer(bytes: multistatus.takeBytes())
            last.writeBytes(Multistatus.closingBytes)
            try await writer.write(last)
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/xml; charset=utf-8"
        return Response(
            status: HTTPResponse.Status(code: 207, reasonPhrase: "Multi-Status"), headers: headers, body: answer)
    }

    /// One member a PROPFIND answers for, with its dead properties read while its folder was open.
    private struct ListedResponse {
        let item: SharedItem
        let dead: Result<[PropertyName: String], SandboxError>
        let unlisted: SandboxError?
    }

    /// The listing of `root`'s members, or `nil` (logged) when it can no longer be opened (it was
    /// removed since the request was checked): the body then answers for `root` alone.
    private func listing(of root: SharePath, recursive: Bool) -> PropfindListing? {
        do throws(SandboxError) {
            return try PropfindListing(
                documents: documents, of: root, recursive: recursive, describing: true, logger: logger)
        } catch {
            logger.warning("PROPFIND \(root): its members could not be listed: \(error)")
            return nil
        }
    }

    /// Lists the next batch of `listing` into `batch`, each member with its dead properties read
    /// from its folder's descriptor when `readingDeadProperties`. A listing that fails midway
    /// (the body is under way) or grows past ``maximumPropfindItems`` since it was counted ends
    /// there, logged: the body ends, well-formed, with what was listed.
    ///
    /// - Returns: `false` once there is nothing more to answer for.
    private func nextBatch(
        of listing: inout PropfindListing?, into batch: inout [ListedResponse], readingDeadProperties: Bool
    ) -> Bool {
        guard var current = listing.take() else { return false }
        let store = properties
        do throws(SandboxError) {
            let more = try current.next { member throws(SandboxError) in
                guard let attributes = member.attributes else { return }
                let dead =
                    readingDeadProperties
                    ? Result { () throws(SandboxError) in try PropfindListing.deadProperties(of: member, in: store) }
                    : .success([:])
                batch.append(
                    ListedResponse(
                        item: SharedItem(path: member.path, attributes: attributes), dead: dead,
                        unlisted: member.unlisted))
            }
            guard more else { return false }
            guard current.count <= Self.maximumPropfindItems else {
                logger.warning("PROPFIND: the listing stopped at \(Self.maximumPropfindItems) items.")
                return !batch.isEmpty
            }
        } catch {
            logger.warning("PROPFIND: the listing ended early: \(error)")
            return !batch.isEmpty
        }
        listing = consume current
        return true
    }

    /// Writes the response for `listed`: its properties, or its error's status alone.
    private func append(
        _ listed: ListedResponse, _ plan: PropfindPlan, _ context: PropertyContext, checksums: ContentChecksums?,
        to multistatus: inout Multistatus
    ) {
        let item = listed.item
        let mark = multistatus.count
        do throws(SandboxError) {
            if let error = listed.unlisted { throw error }
            let dead = try listed.dead.get()
            var context = context
            context.locks = locks.locks(covering: item.path)
            plan.appendResponse(
                snapshot(of: item, askingContentLength: plan.asksContentLength), context: context, dead: dead,
                checksums: checksums, to: &multistatus)
        } catch {
            logger.warning("PROPFIND \(item.path): \(error)")
            multistatus.truncate(to: mark)
            multistatus.add(href: item.path.href(isCollection: item.isCollection), status: error.code.httpStatus)
        }
    }

    /// Refuses a `Depth: infinity` listing of `root` past ``maximumPropfindItems``, counted first
    /// (names and types only) so that the refusal comes before any byte of the body.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` (`propfind-finite-depth`), and the
    ///   failure to list `root`.
    private func requireFiniteListing(of root: SharePath) throws(SandboxError) {
        var count = try PropfindListing(
            documents: documents, of: root, recursive: true, describing: false, logger: logger)
        while try count.next({ _ in }) {
            if count.count > Self.maximumPropfindItems {
                throw SandboxError(
                    .forbidden,
                    "'\(root)' holds more than \(Self.maximumPropfindItems) items: list it with Depth: 1.",
                    path: root.description, condition: "propfind-finite-depth")
            }
        }
    }

    private func volume() throws(SandboxError) -> VolumeValues? {
        do throws(SandboxError) {
            return try documents.volumeValues()
        } catch {
            logger.warning("PROPFIND: no quota: \(error)")
            return nil
        }
    }

    /// PROPPATCH: sets and removes dead properties, all or nothing (RFC 4918 §9.2). Live
    /// properties are protected (403 `cannot-modify-protected-property`; the others then fail
    /// with 424) but for the modification time (``DeadPropertyStore/apply(_:at:)``). 207 Multi-Status.
    func proppatch(_ path: SharePath, request: Request) async throws(SandboxError) -> Response {
        try requireVisibleName(path, for: .modify)
        let body = try await xmlBody(of: request)
        let patch = try ProppatchRequest.parse(body)
        let item = try existingItem(at: path)
        try checkLocks(path, recursive: false, request: request)
        let protected = patch.operations.map(\.name).filter(DeadPropertyStore.isProtected)
        var multistatus = Multistatus()
        let href = path.href(isCollection: item.isCollection)
        if !protected.isEmpty {
            let others = patch.operations.map(\.name).filter { !DeadPropertyStore.isProtected($0) }
            var stats = [
                Propstat(
                    status: 403, properties: protected.map { ($0, nil) }, error: "cannot-modify-protected-property")
            ]
            if !others.isEmpty { stats.append(Propstat(status: 424, properties: others.map { ($0, nil) })) }
            multistatus.add(href: href, propstats: stats)
            return ShareResponses.xml(multistatus.bytes, status: 207)
        }
        let statuses = try properties.apply(patch.operations, at: path.containerPath)
        let grouped = Dictionary(grouping: patch.operations.map(\.name)) { statuses[$0] ?? 200 }
        multistatus.add(
            href: href,
            propstats: grouped.keys.sorted().map { status in
                Propstat(status: status, properties: (grouped[status] ?? []).map { ($0, nil) })
            })
        return ShareResponses.xml(multistatus.bytes, status: 207)
    }
}

extension ProppatchRequest.Operation {
    /// The property the operation sets or removes.
    var name: PropertyName {
        switch self {
        case .set(let name, _), .remove(let name): name
        }
    }
}
