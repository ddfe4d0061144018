#!/usr/bin/env python3
"""Writes the seeds that do not come from the library into Fuzz/Corpus/<target>/: property lists
made by another implementation (python3's plistlib, as Apple's tools would make them) and
hand-written samples of paths, identifiers and HTTP headers (from RFC 9110, 6266 and 8187).

Run from anywhere: python3 Fuzz/Seeds/make-seeds.py. The seeds made by the library itself
(archives, keychains, manifests, resume data) come from `scripts/fuzz --make-seeds`.
"""
import datetime
import os
import plistlib

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def property_lists():
    date = datetime.datetime(2024, 5, 17, 9, 30, 15)  # plistlib takes naive datetimes as UTC
    values = {
        "settings": {
            "username": "ada", "launchCount": 12, "volume": 0.75, "onboarded": True, "dark": False,
            "lastOpened": date, "token": b"\x00\x01tok\xff", "recent": ["a.txt", "b.txt"],
            "window": {"x": 10, "y": -20, "title": "naïve ☃ 𝄞"},
        },
        "numbers": [0, 1, -1, 255, 256, 65535, 65536, 2**31, 2**32, 2**63 - 1, -(2**63), 1.5, -0.0, 1e300, 2.0],
        "strings": ["", "ascii", "é", "日本語", "🙂" * 3, "a\u0000b", "<&>"],
        "empty-dict": {},
        "empty-array": [],
        "deep": {"a": {"b": {"c": {"d": [[[["bottom"]]]]}}}},
        "data": {"blob": bytes(range(256))},
        "shared": {"k%d" % i: "same value" for i in range(20)},
    }
    for name, value in values.items():
        write("binary-plist", "plistlib-%s.plist" % name, plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=True))
        if name != "strings":  # XML cannot hold a NUL (plistlib refuses it)
            write("xml-plist", "plistlib-%s.plist" % name, plistlib.dumps(value, fmt=plistlib.FMT_XML, sort_keys=True))
        if isinstance(value, dict):
            write("preferences-file", "plistlib-%s.plist" % name, plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=True))
    write("preferences-file", "plistlib-settings-xml.plist", plistlib.dumps(values["settings"], fmt=plistlib.FMT_XML))
    # An XML plist in the other spellings readers meet: no XML declaration, a byte-order mark.
    write("xml-plist", "bare-plist.plist", '<plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>')
    write("xml-plist", "bom.plist", b"\xef\xbb\xbf" + plistlib.dumps({"a": "b"}, fmt=plistlib.FMT_XML))


def paths():
    for i, path in enumerate([
        "Documents/a.txt", "Library/Caches/com.example/x.bin", "./Documents/../tmp/", ".", "a//b///c",
        "../etc/passwd", "/etc/passwd", "Documents/naïve café.txt", "a/b/../../c",
        "x" * 255, "a/" * 100, "Library/Preferences/.com.example.notes.plist.lock", "tmp/a b\tc",
    ]):
        write("container-path", "path-%02d" % i, path)
    for i, name in enumerate([
        b"a.txt", b"caf\xc3\xa9", b"cafe\xcc\x81", b"\xff\xfe", b"\xc0\xaf", b"\\x41", b"\x01\x7f\x1b[31m", b" ",
        b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"x" * 255, "日本語 🙂".encode("utf-8"),
    ]):
        write("file-name", "name-%02d" % i, name)
    for i, identifier in enumerate([
        "com.example.notes", "com.example-app.Notes2", "a.b", "com..example", ".com.example", "com.example.",
        "com", "com/example.x", "com.example.notes" + ".x" * 70, '["com.example.notes","org.x.y"]', '["../x"]',
    ]):
        write("app-identifier", "identifier-%02d" % i, identifier)


def headers():
    for i, value in enumerate([
        "bytes 0-499/1234", "bytes 500-999/1234", "bytes 500-1233/1234", "bytes 734-1233/*", "bytes */1234",
        "bytes=0-0/1", "0-9/10", "bytes 21010-47021/47022", "BYTES 1-2/3", "bytes 9-0/10", "bytes 0-10/10",
        "bytes 0-9223372036854775806/9223372036854775807", "bytes -1-5/10", "bytes 1 - 2 / 3",
    ]):
        write("content-range", "range-%02d" % i, value)
    for i, value in enumerate([
        "attachment", "inline", 'attachment; filename="EURO rates.txt"',
        "attachment; filename*=UTF-8''%e2%82%ac%20rates.txt",
        "attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates",
        "attachment; filename*=iso-8859-1'en'%A3%20rates", 'attachment; filename="..\\\\..\\\\evil.exe"',
        'attachment; filename="/etc/passwd"', 'attachment; filename="a\\"b.txt"', "attachment; filename=plain.bin",
        'attachment; FILENAME="caps.txt"', 'attachment; filename=".hidden"', "attachment;filename*=UTF-8'x'%ZZ",
        'form-data; name="file"; filename="photo.jpg"', 'attachment; filename="' + "long" * 80 + '.tar.gz"',
    ]):
        write("content-disposition", "disposition-%02d" % i, value)
    for i, value in enumerate([
        '"5f1c-3a"\n\n', 'W/"5f1c-3a"\nTue, 15 Nov 1994 08:12:31 GMT\nTue, 15 Nov 1994 09:00:00 GMT',
        "\nSunday, 06-Nov-94 08:49:37 GMT\nMon, 07 Nov 1994 08:49:37 GMT", "\nSun Nov  6 08:49:37 1994\n",
        '"bad"tag"\nTue, 15 Nov 1994 08:12:31 GMT\nTue, 15 Nov 1994 08:12:31 GMT', '""\n\n', " \"spaced\" \n\n",
    ]):
        write("validator", "validator-%02d" % i, value)


def checkpoints():
    """Two phases a short `sandbox download` run rarely leaves (the others are real files from
    one, checked in as sandbox-download-*.json): a hand-over in progress and a paused task."""
    common = ('"bytesOnDisk":1024,"createdAt":"2026-11-24T03:45:07Z","expectedLength":4096,'
              '"finalURL":"https:\\/\\/cdn.example.com\\/a.bin","headers":{"Accept":"*\\/*"},"id":3,'
              '"originalURL":"https:\\/\\/example.com\\/a.bin","partialName":"3-0a1b2c3d.partial",'
              '"suggestedFilename":"a.bin","updatedAt":"2026-11-24T03:45:09Z",'
              '"validator":{"entityTag":{"_0":"\\"5f1c-3a\\""}}')
    write("checkpoint", "finishing.json", '{%s,"destination":{"filename":"report.pdf","folder":"documents"},'
          '"phase":{"finishing":{"name":"report.pdf"}}}' % common)
    write("checkpoint", "paused.json", '{%s,"destination":{"folder":"caches"},"expectedDigest":{"algorithm":"sha1",'
          '"hex":"da39a3ee5e6b4b0d3255bfef95601890afd80709"},"lastRestartReason":"validator-changed",'
          '"phase":{"failed":{"code":"cancelled","message":"Paused.","resumable":true}}}' % common)


if __name__ == "__main__":
    property_lists()
    paths()
    headers()
    checkpoints()
