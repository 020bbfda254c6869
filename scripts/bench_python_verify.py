#!/usr/bin/env python3
"""Verify the JWS that `tally bench verify --emit DIR` (or --python) wrote, with Apple's
app-store-server-library, and print the rate. A baseline for Tally's verifier on the same
data, same machine, same run. Requires: pip install app-store-server-library."""
import sys
import time
from pathlib import Path

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier


def main() -> int:
    folder = Path(sys.argv[1])
    root = (folder / "root.der").read_bytes()
    tokens = [line.strip() for line in (folder / "jws.txt").read_text().splitlines() if line.strip()]
    verifier = SignedDataVerifier([root], False, Environment.SANDBOX, "com.example", None)
    verifier.verify_and_decode_signed_transaction(tokens[0])  # warm up imports and OpenSSL
    start = time.perf_counter()
    for token in tokens:
        verifier.verify_and_decode_signed_transaction(token)
    elapsed = time.perf_counter() - start
    print(f"verified={len(tokens)}")
    print(f"verifications_per_second={len(tokens) / elapsed:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
