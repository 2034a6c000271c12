"""PyJWT baseline for scripts/bench-apple.sh: RS256 identity-token verification with the key
cached (a parsed RSAPublicKey reused), checking signature, iss, aud and exp as our verifier does.
Prints `pyjwt_verifications_per_s N`. Needs: pip install pyjwt cryptography."""
import json
import sys
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
public = key.public_key()  # parsed once, like a cached JWKS key
now = int(time.time())
claims = {"iss": "https://appleid.apple.com", "aud": "com.example.bench", "sub": "001234.bench",
          "iat": now, "exp": now + 86400, "email": "a@privaterelay.appleid.com", "email_verified": "true"}
token = jwt.encode(claims, key, algorithm="RS256", headers={"kid": "bench-key"})


def verify():
    return jwt.decode(token, public, algorithms=["RS256"], audience="com.example.bench",
                      issuer="https://appleid.apple.com", leeway=60)["sub"]


for _ in range(200):
    verify()
count, start = 0, time.perf_counter()
while True:
    for _ in range(100):
        verify()
    count += 100
    elapsed = time.perf_counter() - start
    if elapsed >= seconds:
        print(f"pyjwt_verifications_per_s {int(count / elapsed)}")
        break
