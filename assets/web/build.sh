#!/usr/bin/env bash
# Builds the web version of the demo into OUT_DIR, a folder ready to serve as static files:
#   index.html, quadstress.js (this folder), quadstress.wasm, and gl.js, miniquad's loader,
#   copied from the miniquad crate that Cargo.lock pins (gl.js and the crate must match).
# Needs the wasm target: rustup target add wasm32-unknown-unknown
# Serve it with: node assets/web/serve.mjs OUT_DIR   (then open http://127.0.0.1:8000/)
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUT_DIR" >&2
  exit 2
fi
out=$1
web=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$web/../.." && pwd)
cd "$root"

# The `web` profile (Cargo.toml) is optimised for size but for the tree and the simulation,
# without debug info and stripped. simd128 lets the tree's block tests use WebAssembly's
# 128-bit SIMD, which every current browser runs.
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128" \
  cargo build --locked --profile web --target wasm32-unknown-unknown --bin quadstress
target_dir=$(cargo metadata --format-version 1 --no-deps --locked | grep -o '"target_directory":"[^"]*"' | cut -d'"' -f4)
wasm="$target_dir/wasm32-unknown-unknown/web/quadstress.wasm"

# gl.js from the exact miniquad the build linked.
version=$(cargo pkgid --locked miniquad | sed 's/.*[@#:]//')
manifest=$(cargo metadata --format-version 1 --locked \
  | grep -o '"manifest_path":"[^"]*/miniquad-'"$version"'/Cargo.toml"' | head -n 1 | cut -d'"' -f4)
gl_js="$(dirname "$manifest")/js/gl.js"
if [ -z "$manifest" ] || [ ! -f "$gl_js" ]; then
  echo "cannot find gl.js of miniquad $version (cargo metadata gave '$manifest')" >&2
  exit 1
fi

mkdir -p "$out"
cp "$web/index.html" "$web/quadstress.js" "$out/"
cp "$gl_js" "$out/gl.js"
cp "$wasm" "$out/quadstress.wasm"
size=$(wc -c <"$out/quadstress.wasm")
echo "built $out: quadstress.wasm $size bytes, gl.js of miniquad $version"
# The page should stay quick to load: 1.5 MB at most (a debug-info or unstripped build is
# several times this; the web profile at opt-level 3 made 1.85 MB).
limit=1500000
if [ "$size" -gt "$limit" ]; then
  echo "quadstress.wasm is $size bytes, over the $limit-byte limit" >&2
  exit 1
fi
