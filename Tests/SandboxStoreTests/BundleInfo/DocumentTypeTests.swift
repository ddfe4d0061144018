import SandboxStore
import Testing

/// "Open In…": which documents a `CFBundleDocumentTypes` entry accepts.
@Suite("Document types: by uniform type, by conformance, by extension")
struct DocumentTypeTests {
    @Test(
        "a content type accepts the files whose type is it or conforms to it",
        arguments: [
            ("com.adobe.pdf", "report.pdf", true), ("com.adobe.pdf", "REPORT.PDF", true),
            ("com.adobe.pdf", "photo.jpg", false), ("public.image", "photo.JPEG", true),
            ("public.image", "scan.png", true), ("public.image", "report.pdf", false),
            ("public.text", "notes.md", true), ("public.plain-text", "data.csv", false),
            ("public.text", "data.csv", true), ("public.data", "archive.xyz", true),
            ("public.data", "README", true), ("public.content", "song.mp3", true),
            ("public.content", "archive.zip", false), ("public.item", "archive.zip", true),
            ("public.zip-archive", "book.epub", true), ("public.audiovisual-content", "clip.mov", true),
            ("Public.Image", "a.gif", true), ("com.example.custom", "a.custom", false),
        ])
    func byContentType(type: String, file: String, accepted: Bool) {
        #expect(DocumentType(contentTypes: [type]).accepts(fileName: file) == accepted)
    }

    @Test("extensions are the legacy way: compared without case, * for any, ignored beside content types")
    func byExtension() {
        let logs = DocumentType(extensions: ["log", "TXT"])
        #expect(logs.accepts(fileName: "server.LOG"))
        #expect(logs.accepts(fileName: "a.txt"))
        #expect(!logs.accepts(fileName: "a.pdf"))
        #expect(!logs.accepts(fileName: "log"))
        #expect(!logs.accepts(fileName: ".log"))
        #expect(DocumentType(extensions: ["*"]).accepts(fileName: "anything"))
        // As on iOS: LSItemContentTypes, when present, decide alone.
        let both = DocumentType(contentTypes: ["public.image"], extensions: ["pdf"])
        #expect(!both.accepts(fileName: "a.pdf"))
        #expect(both.accepts(fileName: "a.png"))
        #expect(!DocumentType().accepts(fileName: "a.pdf"))
    }

    @Test("conformance runs up to public.item and public.content")
    func conformance() {
        #expect(
            UniformType.conformingTypes(of: "public.jpeg") == [
                "public.jpeg", "public.image", "public.data", "public.content", "public.item",
            ])
        #expect(UniformType.identifier(forFileName: "no-extension") == "public.data")
        #expect(UniformType.identifier(forFileName: "x.unknown") == "public.data")
    }
}
