"""The digests of :mod:`agent_doc._runtime.digest`: CPython's own modules, and
:mod:`hashlib` where a build lacks them, give the same hex on the same inputs.

(BLAKE2b has one implementation: ``hashlib.blake2b`` is ``_blake2.blake2b``.)"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest

from agent_doc._runtime.digest import blake2b_256_hex
from agent_doc._runtime.digest import sha1_hex
from agent_doc._runtime.digest import sha256_hex

INPUTS = [b"", b"abc", "é😀\r\n".encode(), bytes(range(256)) * 1000]

PLAIN_PATH = """
import json, sys
for private in ("_sha2", "_sha256", "_sha1"):
    sys.modules[private] = None  # a build without CPython's own modules
from agent_doc._runtime import digest
inputs = [bytes.fromhex(h) for h in json.loads(sys.stdin.read())]
print(json.dumps({
    "modules": sorted({f.__module__ for f in (digest._sha256, digest._sha1)}),
    "sha256": [digest.sha256_hex(d) for d in inputs],
    "sha1": [digest.sha1_hex(d) for d in inputs],
    "blake2b": [digest.blake2b_256_hex(d) for d in inputs],
}))
"""


@pytest.mark.parametrize("data", INPUTS, ids=["empty", "abc", "non-ascii", "256k"])
def test_the_fast_path_gives_hashlibs_digests(data: bytes) -> None:
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert sha1_hex(data) == hashlib.sha1(data).hexdigest()
    assert blake2b_256_hex(data) == hashlib.blake2b(data, digest_size=32).hexdigest()


def test_without_cpythons_modules_hashlib_gives_the_same_digests() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_PATH],
        input=json.dumps([d.hex() for d in INPUTS]),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    plain = json.loads(done.stdout)
    assert plain["modules"] == ["_hashlib"]  # the fallback really ran
    assert plain["sha256"] == [sha256_hex(d) for d in INPUTS]
    assert plain["sha1"] == [sha1_hex(d) for d in INPUTS]
    assert plain["blake2b"] == [blake2b_256_hex(d) for d in INPUTS]
