import Logging
import Sandbox
import SandboxStore

extension DAVMethods {
    /// `item` as PROPFIND answers for it: with a protected file's plaintext length as its
    /// `DAV:getcontentlength` when the query `asked` for that property (a name list holding it, or
    /// `allprop`: ``PropfindPlan/asksContentLength``), so that a client's size is the one a GET sends.
    func snapshot(of item: SharedItem, askingContentLength asked: Bool) -> ItemSnapshot {
        var snapshot = item.snapshot
        if asked, !item.isCollection { snapshot.contentLength = contentLength(of: item) }
        return snapshot
    }

    /// The length of the file `item`'s contents: a protected file's plaintext length, read from
    /// its header (no key is needed, so it is known while the device is locked); its size
    /// otherwise, and when its header cannot be read (it vanished; damaged: logged), which a GET
    /// then reports.
    func contentLength(of item: SharedItem) -> Int64 {
        let size = item.attributes.size
        guard dataProtection != nil, !item.isCollection, size >= DataProtection.smallestProtectedFileSize else {
            return size
        }
        do {
            let file = try documents.openFile(forReadingAt: item.path.containerPath)
            defer { closeQuietly(file) }
            return try DataProtection.contentLength(of: file, path: item.path.description) ?? size
        } catch  where error.code == .notFound {
            return size
        } catch {
            logger.warning("\(item.path): its protected length is unknown: \(error)")
            return size
        }
    }
}
