#!/usr/bin/env python3
"""The encrypted iOS backups of IOSBackupEncryptedTests.swift, made as iOS 10.2+ lays them out, and
their judge.

    ios-encrypted-backup.py generate DIR PASSWORD DPIC ITER
        writes an encrypted backup into DIR/backup and, beside it, what it holds in the clear:
        DIR/expected/Manifest.db, DIR/expected/<fileID> for each file, DIR/expected/keybag.bin
        (Manifest.plist's BackupKeyBag) and DIR/expected/index.json (each file's fileID, domain,
        relativePath, Size and EncryptionKey as hex, as the MBFile in Manifest.db holds them).
    ios-encrypted-backup.py judge DIR PASSWORD
        opens DIR/backup with iphone-backup-decrypt (PyPI iphone_backup_decrypt) and checks that
        its Manifest.db and every file of the domain AppDomain-com.example.notes decrypt to the
        bytes in DIR/expected; prints the number of files checked.

The backup: Manifest.plist (binary) with IsEncrypted, BackupKeyBag and ManifestKey; the keybag's
class keys 1...11 wrapped (RFC 3394) under PBKDF2-HMAC-SHA1(PBKDF2-HMAC-SHA256(password, DPSL,
DPIC), SALT, ITER); Manifest.db encrypted whole (AES-256-CBC, zero IV, PKCS7) under ManifestKey
(4-byte little-endian class, then the wrapped key); each file at <first two hex digits>/<fileID>,
encrypted the same way under its own key, whose wrapped form is the MBFile's EncryptionKey (an
NSMutableData archived by bpylist2, its bytes inline as NSKeyedArchiver writes them: 4-byte
class, then the wrapped key). The domain AppDomain-com.example.hostile holds a file whose
padding is wrong and one whose Size is larger than its data. Made with Python's cryptography package (pip), independently of the Swift reader.
"""
import dataclasses
import hashlib
import json
import os
import plistlib
import sqlite3
import struct
import sys

from bpylist2 import archiver
from bpylist2.archive_types import DataclassArchiver
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

APP_DOMAIN = "AppDomain-com.example.notes"
HOSTILE_DOMAIN = "AppDomain-com.example.hostile"


@dataclasses.dataclass
class NSMutableData(DataclassArchiver):
    NSdata: bytes = b""

    @staticmethod
    def encode_archive(obj, archive):
        # NSKeyedArchiver writes an NSData's bytes inline in its object (bpylist2 would refer to
        # them by UID), and iphone-backup-decrypt reads them there.
        archive._archive_obj["NS.data"] = obj.NSdata


@dataclasses.dataclass
class MBFile(DataclassArchiver):
    LastModified: int = 0
    Birth: int = 0
    LastStatusChange: int = 0
    Mode: int = 0o100644
    Size: int = 0
    ProtectionClass: int = 0
    Flags: int = 0
    GroupID: int = 501
    UserID: int = 501
    InodeNumber: int = 0
    RelativePath: str = ""
    EncryptionKey: object = None


archiver.update_class_map({"MBFile": MBFile, "NSMutableData": NSMutableData})


def tlv(tag, value):
    if isinstance(value, int):
        value = struct.pack(">L", value)
    return tag + struct.pack(">L", len(value)) + value


def cbc(key, plaintext, pad=True):
    if pad:
        padder = padding.PKCS7(128).padder()
        plaintext = padder.update(plaintext) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(b"\0" * 16)).encryptor()
    return encryptor.update(plaintext) + encryptor.finalize()


def generate(folder, password, dpic, iterations):
    backup = os.path.join(folder, "backup")
    expected = os.path.join(folder, "expected")
    os.makedirs(backup)
    os.makedirs(expected)
    rng = os.urandom
    dpsl, salt = rng(20), rng(20)
    round1 = hashlib.pbkdf2_hmac("sha256", password.encode(), dpsl, dpic, 32)
    passcode_key = hashlib.pbkdf2_hmac("sha1", round1, salt, iterations, 32)
    class_keys = {cls: rng(32) for cls in range(1, 12)}
    keybag = b"".join([
        tlv(b"VERS", 4), tlv(b"TYPE", 1), tlv(b"UUID", rng(16)), tlv(b"HMCK", rng(40)), tlv(b"WRAP", 0),
        tlv(b"SALT", salt), tlv(b"ITER", iterations), tlv(b"DPWT", 1), tlv(b"DPIC", dpic), tlv(b"DPSL", dpsl),
    ])
    for cls, key in class_keys.items():
        keybag += b"".join([
            tlv(b"UUID", rng(16)), tlv(b"CLAS", cls), tlv(b"WRAP", 2), tlv(b"KTYP", 0),
            tlv(b"WPKY", aes_key_wrap(passcode_key, key)),
        ])

    def wrapped(cls, key):
        return struct.pack("<L", cls) + aes_key_wrap(class_keys[cls], key)

    files = [
        (APP_DOMAIN, "Documents/notes.txt", 3, b"The first note.\n"),
        (APP_DOMAIN, "Documents/empty", 3, b""),
        (APP_DOMAIN, "Documents/block", 1, bytes(range(16))),
        (APP_DOMAIN, "Library/Preferences/com.example.notes.plist", 4, rng(1000)),
        (APP_DOMAIN, "Documents/Big Folder/large.bin", 3, rng(2 * 1024 * 1024 + 777)),
    ]
    database = os.path.join(expected, "Manifest.db")
    connection = sqlite3.connect(database)
    connection.execute(
        "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)")
    connection.execute("CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)")
    index = []

    def add(domain, path, cls, data, size=None, ciphertext=None):
        file_id = hashlib.sha1(f"{domain}-{path}".encode()).hexdigest()
        key = rng(32)
        encryption_key = wrapped(cls, key)
        record = MBFile(Size=len(data) if size is None else size, ProtectionClass=cls, RelativePath=path,
                        LastModified=1_700_000_000, Birth=1_700_000_000, LastStatusChange=1_700_000_000,
                        Flags=0, InodeNumber=len(index) + 1000,
                        EncryptionKey=NSMutableData(NSdata=encryption_key))
        connection.execute("INSERT INTO Files VALUES (?, ?, ?, 1, ?)",
                           (file_id, domain, path, archiver.archive(record)))
        os.makedirs(os.path.join(backup, file_id[:2]), exist_ok=True)
        with open(os.path.join(backup, file_id[:2], file_id), "wb") as out:
            out.write(cbc(key, data) if ciphertext is None else ciphertext(key))
        with open(os.path.join(expected, file_id), "wb") as out:
            out.write(data)
        index.append({"fileID": file_id, "domain": domain, "relativePath": path, "size": record.Size,
                      "encryptionKey": encryption_key.hex()})

    for domain, path, cls, data in files:
        add(domain, path, cls, data)
    # Hostile: the last byte of the padding says 17; a Size 100 bytes past the data.
    add(HOSTILE_DOMAIN, "Documents/bad-padding", 3, b"x" * 20,
        ciphertext=lambda key: cbc(key, b"x" * 20 + b"\x11" * 12, pad=False))
    add(HOSTILE_DOMAIN, "Documents/short", 3, b"y" * 40, size=140)
    connection.commit()
    connection.close()

    manifest_key = rng(32)
    with open(database, "rb") as plain:
        clear = plain.read()
    with open(os.path.join(backup, "Manifest.db"), "wb") as out:
        out.write(cbc(manifest_key, clear))
    manifest = {
        "BackupKeyBag": keybag, "ManifestKey": wrapped(4, manifest_key), "IsEncrypted": True,
        "Version": "10.0", "Applications": {}, "Lockdown": {"ProductVersion": "17.5"},
    }
    with open(os.path.join(backup, "Manifest.plist"), "wb") as out:
        plistlib.dump(manifest, out, fmt=plistlib.FMT_BINARY)
    with open(os.path.join(expected, "keybag.bin"), "wb") as out:
        out.write(keybag)
    with open(os.path.join(expected, "index.json"), "w") as out:
        json.dump(index, out)


def judge(folder, password):
    from iphone_backup_decrypt import EncryptedBackup

    expected = os.path.join(folder, "expected")
    backup = EncryptedBackup(backup_directory=os.path.join(folder, "backup"), passphrase=password)
    out = os.path.join(folder, "judged")
    backup.save_manifest_file(os.path.join(out, "Manifest.db"))
    failures = []
    with open(os.path.join(out, "Manifest.db"), "rb") as a, open(os.path.join(expected, "Manifest.db"), "rb") as b:
        if a.read() != b.read():
            failures.append("Manifest.db")
    with open(os.path.join(expected, "index.json")) as source:
        index = [entry for entry in json.load(source) if entry["domain"] == APP_DOMAIN]
    for entry in index:
        data = backup.extract_file_as_bytes(entry["relativePath"], domain_like=entry["domain"])
        with open(os.path.join(expected, entry["fileID"]), "rb") as clear:
            if data != clear.read():
                failures.append(entry["relativePath"])
    if failures:
        sys.exit(f"iphone-backup-decrypt read other bytes for: {', '.join(failures)}")
    print(len(index))


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif sys.argv[1] == "judge":
        judge(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
