#!/usr/bin/env python3
"""The PyPI judges of the keyed-archive interop tests (KeyedArchiveInteropTests.swift).

    keyed-archive-judges.py generate DIR   bpylist2 writes its archives into DIR
    keyed-archive-judges.py bpylist2 FILE  bpylist2 reads FILE and prints what it decoded
    keyed-archive-judges.py nska FILE      nska_deserialize reads FILE and prints what it decoded

What is printed is canonical JSON (sorted keys, ASCII), so the Swift test compares it exactly:
data as {"data": hex}, dates as {"date": seconds since 2001-01-01 UTC}, UUIDs as {"uuid": text},
URLs as {"url": text}, sets as {"set": [sorted elements]}, custom objects as {"class": name, ...}.
Installed by scripts/install-test-tools (pip: bpylist2, nska_deserialize).
"""
import dataclasses
import datetime
import json
import sys
import uuid

import nska_deserialize
from bpylist2 import archiver
from bpylist2.archive_types import DataclassArchiver, timestamp

APPLE_EPOCH = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)


@dataclasses.dataclass
class Person(DataclassArchiver):
    """A custom class, archived as $classname Person."""
    name: str = ""
    age: int = 0
    friend: object = None


class UUIDArchive:
    @staticmethod
    def decode_archive(archive):
        return uuid.UUID(bytes=bytes(archive.decode("NS.uuidbytes")))


class URLArchive:
    @staticmethod
    def decode_archive(archive):
        base, relative = archive.decode("NS.base"), archive.decode("NS.relative")
        return {"url": relative if base is None else base["url"] + " + " + relative}


class NullArchive:
    @staticmethod
    def decode_archive(archive):
        return None


archiver.update_class_map({"Person": Person, "NSUUID": UUIDArchive, "NSURL": URLArchive, "NSNull": NullArchive})


def plain(value):
    """The value as JSON can hold it, every type tagged where JSON would lose it."""
    if isinstance(value, timestamp):
        return {"date": round(float(value) - timestamp.unix2apple_epoch_delta, 3)}
    if isinstance(value, datetime.datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc)
        return {"date": round((moment - APPLE_EPOCH).total_seconds(), 3)}
    if isinstance(value, (bytes, bytearray)):
        return {"data": bytes(value).hex()}
    if isinstance(value, uuid.UUID):
        return {"uuid": str(value).upper()}
    if isinstance(value, Person):
        return {"class": "Person", "name": plain(value.name), "age": value.age, "friend": plain(value.friend)}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((plain(element) for element in value), key=json.dumps)}
    if isinstance(value, dict):
        return {str(key): plain(element) for key, element in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(element) for element in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return {"unknown": repr(value)}


def generate(folder):
    bob = Person(name="Bob", age=40, friend=None)
    root = {
        "name": "Ada", "text": "h\u00e9llo \u2713", "count": 3, "big": -5000000000, "ratio": 0.5,
        "flag": True, "off": False, "blob": b"\x00\x01\xff", "list": ["a", "b", "a"],
        "nested": {"x": [1, 2]}, "when": timestamp(timestamp.unix2apple_epoch_delta + 1000.5),
        "tags": {"red"}, "none": None, "person": Person(name="Ada", age=36, friend=bob),
    }
    with open(folder + "/bpylist2-values.archive", "wb") as file:
        file.write(archiver.archive(root))
    profile = {"name": "Ada", "count": 3, "ratio": 0.5, "flag": True, "blob": b"\x00\x01",
               "list": ["a", "b"], "when": timestamp(timestamp.unix2apple_epoch_delta + 1000.5)}
    with open(folder + "/bpylist2-profile.archive", "wb") as file:
        file.write(archiver.archive(profile))
    cycle = ["x"]
    cycle.append(cycle)
    with open(folder + "/bpylist2-cycle.archive", "wb") as file:
        file.write(archiver.archive(cycle))


def main():
    command, argument = sys.argv[1], sys.argv[2]
    if command == "generate":
        generate(argument)
        return
    with open(argument, "rb") as file:
        data = file.read()
    if command == "bpylist2":
        decoded = archiver.unarchive(data)
    else:
        decoded = nska_deserialize.deserialize_plist_from_string(data, format=dict)
    print(json.dumps(plain(decoded), sort_keys=True, ensure_ascii=True))


main()
