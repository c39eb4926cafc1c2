#!/usr/bin/env bash
# Copy the JavaScript the built book serves itself (MathJax 3) from npm into _vendor/vendor/,
# which Sphinx publishes as _static/vendor/. The book then renders math offline and behind
# firewalls: no CDN is contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/mathjax/es5/tex-chtml.js ] || [ package.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi
out=_vendor/vendor
rm -rf "$out"
mkdir -p "$out/mathjax"
cp -r node_modules/mathjax/es5/. "$out/mathjax/"
touch "$out/.stamp"
echo "vendored JavaScript into $out ($(du -sh "$out" | cut -f1))"
