#!/usr/bin/env bash
# Benchmarks Sign in with Apple identity-token verification (RS256, key cached), one thread, and
# compares in one run:
#   - AppleSignIn's IdentityTokenVerifier (every check)          verifications/s
#   - openssl speed rsa2048 verify/s (the raw RSA-2048 verify ceiling)   ratio, target >= 0.5
#   - PyJWT with a cached key (scripts/bench/apple_pyjwt.py)
#   - jwt-kit JWTKeyCollection + AppleIdentityToken: the path of vapor/jwt's req.jwt.apple.verify
#     once Apple's JWKS is cached, reproduced without Vapor's Request
#
#   scripts/bench-apple.sh [seconds]          (default 5 s per measurement)
#   scripts/bench-apple.sh [seconds] --ordo   also run the ordo-one/benchmark target (slower to build)
#
# PyJWT: pip install pyjwt cryptography (the script installs them when missing).
set -euo pipefail
seconds="${1:-5}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/Benchmarks"
swift build -c release --product apple-bench 2>&1 | grep -E 'error' || true
ours_out="$(.build/release/apple-bench "$seconds")"
echo "$ours_out"
ours=$(awk '/^applesignin_verifications_per_s/ {print $2}' <<<"$ours_out")
jwtkit=$(awk '/^jwtkit_apple_verifications_per_s/ {print $2}' <<<"$ours_out")

# openssl: the "verify/s" column of the rsa 2048 line.
openssl_line="$(openssl speed -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print}' | tail -1)"
echo "openssl: $openssl_line"
openssl_verify=$(awk '{print $(NF)}' <<<"$openssl_line")

python3 -c 'import jwt, cryptography' 2>/dev/null || pip install --quiet pyjwt cryptography
pyjwt=$(python3 "$root/scripts/bench/apple_pyjwt.py" "$seconds" | awk '{print $2}')
echo "pyjwt_verifications_per_s $pyjwt"

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
echo "ratio AppleSignIn / openssl rsa2048 verify: $(ratio "$ours" "$openssl_verify") (target >= 0.5)"
echo "ratio AppleSignIn / PyJWT:                  $(ratio "$ours" "$pyjwt")"
echo "ratio AppleSignIn / jwt-kit Apple path:     $(ratio "$ours" "$jwtkit")"

if [ "${2:-}" = "--ordo" ]; then
  swift package --allow-writing-to-package-directory benchmark --target AppleIdentityTokenVerification
fi
