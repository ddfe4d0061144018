import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox

extension DAVMethods {
    /// Most items one PROPFIND answers for; a deeper listing is refused with 403
    /// `propfind-finite-depth` (RFC 4918 §9.1), so one request cannot walk a huge tree into memory.
    static let maximumPropfindItems = 100_000

    /// PROPFIND: the properties of an item and, with `Depth: 1` or infinity (the default), of
    /// its members — hidden names and symlinks left out. 207 Multi-Status.
    ///
    /// A collection below the one named whose members cannot be listed (its path is too long for
    /// Linux, it may not be read) is reported alone, as a response with its href and the error's
    /// status (RFC 4918 §9.1), and the rest is answered.
    func propfind(_ path: SharePath, request: Request) async throws(SandboxError) -> Response {
        let depth = try Depth.parse(request.headers.fieldValue(.depth), default: .infinity)
        let query = try PropfindRequest.parse(try await xmlBody(of: request))
        let root = try existingItem(at: path)
        let (items, unlisted) = try members(of: root, depth: depth)
        let context = PropertyContext(locks: [], now: locks.now, volume: try volume())
        let methods = self
        let wantsChecksums: Bool
        if case .properties(let names) = query {
            wantsChecksums = names.contains(ContentChecksums.propertyName)
        } else {
            wantsChecksums = false
        }
        // Each response is written straight into one buffer, sent whenever it holds about 64 KiB
        // (the writer waits while the client is slower than the listing).
        let answer = ResponseBody { writer in
            var multistatus = Multistatus()
            var budget = ChecksumStore.requestBudget
            for item in items {
                var checksums: ContentChecksums? = nil
                if wantsChecksums, !item.isCollection {
                    checksums = await ChecksumStore.computed(
                        for: item.path, in: methods.documents, dataProtection: methods.dataProtection, budget: &budget,
                        logger: methods.logger)
                }
                let href = item.path.href(isCollection: item.isCollection)
                let mark = multistatus.count
                do throws(SandboxError) {
                    if let error = unlisted[item.path] { throw error }
                    try methods.appendResponse(
                        href: href, for: item, query, context, checksums: checksums, to: &multistatus)
                } catch {
                    methods.logger.warning("PROPFIND \(item.path): \(error)")
                    multistatus.truncate(to: mark)
                    multistatus.add(href: href, status: error.code.httpStatus)
                }
                if multistatus.count >= Multistatus.flushSize {
                    try await writer.write(ByteBuffer(bytes: multistatus.takeBytes()))
                }
            }
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

    /// `root` and its members to `depth`, breadth first, and the collections below `root` whose
    /// members could not be listed, with why.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when `root`'s own members cannot be listed, and
    ///   ``SandboxCore/SandboxError/Code/forbidden`` (`propfind-finite-depth`) past ``maximumPropfindItems``.
    private func members(
        of root: SharedItem, depth: Depth
    ) throws(SandboxError) -> (items: [SharedItem], unlisted: [SharePath: SandboxError]) {
        var result = [root]
        var unlisted: [SharePath: SandboxError] = [:]
        guard root.isCollection, depth != .zero else { return (result, unlisted) }
        var next = 0
        while next < result.count {
            let directory = result[next]
            next += 1
            guard directory.isCollection, directory.path == root.path || depth == .infinity else { continue }
            do throws(SandboxError) {
                result += try children(of: directory.path)
            } catch  where directory.path != root.path {
                unlisted[directory.path] = error
                continue
            }
            if result.count > Self.maximumPropfindItems {
                throw SandboxError(
                    .forbidden,
                    "'\(root.path)' holds more than \(Self.maximumPropfindItems) items: list it with Depth: 1.",
                    path: root.path.description, condition: "propfind-finite-depth")
            }
        }
        return (result, unlisted)
    }

    private func volume() throws(SandboxError) -> VolumeValues? {
        do throws(SandboxError) {
            return try documents.volumeValues()
        } catch {
            logger.warning("PROPFIND: no quota: \(error)")
            return nil
        }
    }

    /// Writes the `DAV:response` of `item` answering `query` into `multistatus`: its properties
    /// by status (200, then 404 for names asked for that it lacks), rendered in place.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when its dead properties cannot be read (it may not
    ///   be read, it vanished); part of the response may have been written.
    private func appendResponse(
        href: String, for item: SharedItem, _ query: PropfindRequest, _ context: PropertyContext,
        checksums: ContentChecksums? = nil, to multistatus: inout Multistatus
    ) throws(SandboxError) {
        let snapshot = snapshot(of: item, for: query)
        var context = context
        context.locks = locks.locks(covering: item.path)
        let dead = try properties.properties(at: item.path.containerPath)
        multistatus.beginResponse(href: href)
        let propstat = multistatus.count
        multistatus.beginPropstat()
        switch query {
        case .propertyNames:
            for name in LiveProperties.names
            where LiveProperties.value(of: name, for: snapshot, context: context) != nil {
                multistatus.appendProperty(name) { _ in true }
            }
            for name in dead.keys.sorted() { multistatus.appendProperty(name) { _ in true } }
        case .allProperties(let include):
            var written: [PropertyName] = []
            for name in LiveProperties.allPropNames + include where !written.contains(name) {
                let present = multistatus.appendProperty(name) { xml in
                    LiveProperties.append(name, for: snapshot, context: context, to: &xml)
                }
                if present { written.append(name) }
            }
            for (name, value) in dead.sorted(by: { $0.key < $1.key }) {
                multistatus.appendProperty(name) { xml in
                    xml += value.utf8
                    return true
                }
            }
        case .properties(let names):
            var missing: [PropertyName] = []
            for name in names {
                let present = multistatus.appendProperty(name) { xml in
                    if LiveProperties.append(name, for: snapshot, context: context, to: &xml) { return true }
                    if name == ContentChecksums.propertyName {
                        guard let checksums else { return false }
                        xml += checksums.propertyValue.utf8
                        return true
                    }
                    guard let value = dead[name] else { return false }
                    xml += value.utf8
                    return true
                }
                if !present { missing.append(name) }
            }
            if missing.count < names.count {
                multistatus.endPropstat(status: 200)
            } else {
                multistatus.truncate(to: propstat)
            }
            if !missing.isEmpty {
                multistatus.beginPropstat()
                for name in missing { multistatus.appendProperty(name) { _ in true } }
                multistatus.endPropstat(status: 404)
            }
            multistatus.endResponse()
            return
        }
        multistatus.endPropstat(status: 200)
        multistatus.endResponse()
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
