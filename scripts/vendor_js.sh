#!/usr/bin/env bash
# Copy the JavaScript the built book serves itself from npm into _vendor/vendor/, which Sphinx
# publishes as _static/vendor/. The book then works offline and behind firewalls: no CDN is
# contacted.
#   mathjax/        MathJax 3 (every page)
#   html-manager/   @jupyter-widgets/html-manager's standalone embed.js (the ipywidgets 8 widget
#                   manager, no require.js needed) and the Font Awesome fonts it references next to
#                   itself; loaded only by pages with a kernel-less explorer (book/_ext).
set -euo pipefail
cd "$(dirname "$0")/.."
manager=node_modules/@jupyter-widgets/html-manager/dist
if [ ! -f node_modules/mathjax/es5/tex-chtml.js ] || [ ! -f "$manager/embed.js" ] \
   || [ package.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi
out=_vendor/vendor
rm -rf "$out"
mkdir -p "$out/mathjax" "$out/html-manager"
cp -r node_modules/mathjax/es5/. "$out/mathjax/"
cp "$manager/embed.js" "$manager/embed.js.LICENSE.txt" "$out/html-manager/"
# The widgets typeset their labels with MathJax 2's API (MathJax.Hub.Queue), which MathJax 3 (the
# book's) does not have: every label would log a TypeError. Use MathJax 3's typesetPromise when
# there is no Hub. The patch must apply exactly twice (checked), or the vendoring fails.
old='MathJax.Hub.Queue(["Typeset",MathJax.Hub,e])'
new='(MathJax.Hub?MathJax.Hub.Queue(["Typeset",MathJax.Hub,e]):MathJax.typesetPromise\&\&MathJax.typesetPromise([e]).catch(function(){}))'
count=$(grep -o -F "$old" "$out/html-manager/embed.js" | wc -l)
if [ "$count" != 2 ]; then echo "vendor_js.sh: expected 2 MathJax.Hub calls in embed.js, found $count" >&2; exit 1; fi
sed -i "s/MathJax\.Hub\.Queue(\[\"Typeset\",MathJax\.Hub,e\])/$new/g" "$out/html-manager/embed.js"
[ "$(grep -o -F 'MathJax.typesetPromise&&MathJax.typesetPromise([e])' "$out/html-manager/embed.js" | wc -l)" = 2 ]
cp "$manager"/*.woff2 "$manager"/*.woff "$manager"/*.ttf "$manager"/*.eot "$manager"/*.svg "$out/html-manager/"
touch "$out/.stamp"
echo "vendored JavaScript into $out ($(du -sh "$out" | cut -f1))"
