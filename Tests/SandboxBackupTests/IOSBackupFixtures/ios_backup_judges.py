#!/usr/bin/env python3
"""The PyPI judges of an iOS backup folder, and an iPhone-style backup made without our exporter.

  ios_backup_judges.py mvt DIR OUT      mvt-ios check-backup; prints [[domain, relativePath, flags], ...]
                                        from its manifest results, sorted
  ios_backup_judges.py iosbackup DIR    iOSbackup opens the folder; prints [[domain, relativePath,
                                        flags, FNV-1a of getFileDecryptedCopy's bytes or null], ...], sorted
  ios_backup_judges.py make DIR SPEC    writes a backup folder as an iPhone lays it out, its MBFile
                                        archives made by bpylist2's archiver, from the JSON SPEC:
                                        {"items": [{"domain", "path", "kind": "file"|"dir"|"link",
                                        "data"?: latin-1 text, "mode"?, "mtime"?, "target"?,
                                        "fileID"?, "size"?, "skipFile"?: true}], "rawRows"?: [...],
                                        "manifestDB"?: latin-1 text, "encrypted"?: bool}
"""
import hashlib
import json
import os
import plistlib
import sqlite3
import subprocess
import sys
import tempfile


def mvt(folder, out):
    run = subprocess.run(["mvt-ios", "check-backup", "--output", out, folder], capture_output=True, text=True)
    path = os.path.join(out, "manifest.json")
    if not os.path.exists(path):
        sys.exit(f"mvt wrote no manifest.json (status {run.returncode}): {run.stdout[-2000:]} {run.stderr[-2000:]}")
    with open(path) as handle:
        rows = json.load(handle)
    print(json.dumps(sorted([r["domain"], r["relative_path"], r["flags"]] for r in rows)))


def fnv(data):
    """FNV-1a, 64 bits: the tests' digest of contents (TreeDescription.fnv)."""
    value = 0xcbf29ce484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return value


def iosbackup(folder):
    from iOSbackup import iOSbackup as Backup
    folder = os.path.abspath(folder)
    backup = Backup(udid=os.path.basename(folder), backuproot=os.path.dirname(folder))
    listed = []
    with tempfile.TemporaryDirectory() as target:
        for entry in backup.getBackupFilesList():
            digest = None
            if entry["flags"] == 1:
                info = backup.getFileDecryptedCopy(
                    manifestEntry={"manifest": entry["file"], "fileID": entry["backupFile"],
                                   "domain": entry["domain"], "relativePath": entry["name"]},
                    targetFolder=target, targetName=entry["backupFile"])
                with open(info["decryptedFilePath"], "rb") as handle:
                    digest = str(fnv(handle.read()))
            listed.append([entry["domain"], entry["name"], entry["flags"], digest])
    print(json.dumps(sorted(listed, key=lambda e: (e[0], e[1]))))


class MBFile:
    def __init__(self, **fields):
        self.fields = fields

    def encode_archive(self, archive):
        for key, value in self.fields.items():
            archive.encode(key, value)


def make(folder, spec_path):
    from bpylist2 import archiver
    archiver.update_class_map({"MBFile": MBFile})
    with open(spec_path) as handle:
        spec = json.load(handle)
    os.makedirs(folder)
    kinds = {"file": (1, 0o100644), "dir": (2, 0o40755), "link": (4, 0o120755)}
    if "manifestDB" in spec:
        with open(os.path.join(folder, "Manifest.db"), "wb") as handle:
            handle.write(spec["manifestDB"].encode("latin-1"))
    else:
        db = sqlite3.connect(os.path.join(folder, "Manifest.db"))
        db.executescript(
            "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB);"
            "CREATE INDEX FilesDomainIdx ON Files(domain); CREATE INDEX FilesRelativePathIdx ON Files(relativePath);"
            "CREATE INDEX FilesFlagsIdx ON Files(flags); CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB);")
        for item in spec["items"]:
            flags, mode = kinds[item["kind"]]
            mode = item.get("mode", mode)
            path = item["path"]
            path_bytes = path.encode("latin-1") if item.get("latin1Path") else path.encode()
            file_id = item.get("fileID") or hashlib.sha1(item["domain"].encode() + b"-" + path_bytes).hexdigest()
            data = item.get("data", "").encode("latin-1")
            mtime = item.get("mtime", 1700000000)
            fields = dict(LastModified=mtime, LastStatusChange=mtime, Birth=mtime,
                          Size=item.get("size", len(data)), Mode=mode, UserID=501, GroupID=501,
                          InodeNumber=123456, Flags=0, ProtectionClass=3, RelativePath=path)
            if item["kind"] == "link":
                fields["Target"] = item["target"]
            blob = archiver.archive(MBFile(**fields))
            stored_path = sqlite3.Binary(path_bytes) if item.get("latin1Path") else path
            db.execute("INSERT INTO Files VALUES (?, ?, ?, ?, ?)",
                       (file_id, item["domain"], stored_path, flags, blob))
            if item["kind"] == "file" and not item.get("skipFile"):
                os.makedirs(os.path.join(folder, file_id[:2]), exist_ok=True)
                with open(os.path.join(folder, file_id[:2], file_id), "wb") as handle:
                    handle.write(data)
        for row in spec.get("rawRows", []):
            db.execute("INSERT INTO Files VALUES (?, ?, ?, ?, ?)",
                       (row["fileID"], row["domain"], row["path"], row["flags"], row["file"].encode("latin-1")))
        db.commit()
        db.close()
    udid = "0123456789abcdef0123456789abcdef01234567"
    lockdown = {"ProductVersion": "17.4", "ProductType": "iPhone15,2", "BuildVersion": "21E219",
                "UniqueDeviceID": udid, "SerialNumber": "F2LXX0XXXXXX", "DeviceName": "iPhone"}
    manifest = {"IsEncrypted": bool(spec.get("encrypted")), "Version": "10.0", "Lockdown": lockdown,
                "Applications": {}, "WasPasscodeSet": True, "BackupKeyBag": b"VERS\0\0\0\4\0\0\0\3"}
    with open(os.path.join(folder, "Manifest.plist"), "wb") as handle:
        plistlib.dump(manifest, handle, fmt=plistlib.FMT_BINARY)
    with open(os.path.join(folder, "Info.plist"), "wb") as handle:
        plistlib.dump({"Device Name": "iPhone", "Unique Identifier": udid.upper()}, handle)
    with open(os.path.join(folder, "Status.plist"), "wb") as handle:
        plistlib.dump({"IsFullBackup": False, "Version": "3.3", "BackupState": "new",
                       "SnapshotState": "finished"}, handle, fmt=plistlib.FMT_BINARY)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "mvt":
        mvt(sys.argv[2], sys.argv[3])
    elif command == "iosbackup":
        iosbackup(sys.argv[2])
    elif command == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"unknown command {command}")
