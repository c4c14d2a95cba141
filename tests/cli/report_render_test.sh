#!/bin/sh
# The HTML report in a real browser (headless Chromium): it loads with no console message
# (its Content-Security-Policy forbids every fetch, so a reference to anything outside the
# file would show up here as a refusal), every chart has drawn marks with a non-empty
# bounding box, the screenshot shows each series colour, and it prints to a multi-page PDF.
# Two reports: a fresh tour on this machine and one from recorded documents.
bin="$1"; fixtures="$2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

browser=""
for name in chromium chromium-browser google-chrome; do
  if command -v "$name" >/dev/null 2>&1; then browser=$name; break; fi
done
[ -n "$browser" ] || fail "no Chromium found: install it with scripts/setup (Debian package 'chromium')"
python=""
for candidate in /usr/bin/python3 python3; do
  if "$candidate" -c "import PIL" >/dev/null 2>&1; then python=$candidate; break; fi
done
[ -n "$python" ] || fail "python3 with PIL not found: install it with scripts/setup (Debian package 'python3-pil')"

# Chromium needs a writable home and no sandbox inside containers; its own dbus/gpu noise on
# stderr is not the page's: only CONSOLE lines come from the page.
export HOME="$dir"
run_browser() { timeout 90 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run "$@"; }

check_report() {  # check_report FILE LABEL
  report=$1; label=$2
  run_browser --enable-logging=stderr --v=0 --dump-dom "file://$report" >"$dir/dom.html" 2>"$dir/console.log" \
    || fail "$label: Chromium could not load the report"
  if grep -E "CONSOLE|Refused to" "$dir/console.log" >"$dir/messages"; then
    fail "$label: console messages: $(cat "$dir/messages")"
  fi
  grep -q "</svg>" "$dir/dom.html" || fail "$label: no SVG in the rendered page"

  # A copy with a probe script (the report itself has none, and its policy forbids scripts):
  # count charts whose marks have a non-empty bounding box after layout.
  probe="$dir/probe.html"
  cat >"$dir/probe.js" <<'JS'
<script>
const charts = [...document.querySelectorAll("svg.chart")];
const undrawn = charts.filter(c => {
  const m = c.querySelector("g.marks");
  if (!m) return true;
  const b = m.getBBox();
  return m.querySelectorAll("path,circle,rect").length === 0 || b.width <= 0 || b.height <= 0;
});
document.body.setAttribute("data-charts", charts.length);
document.body.setAttribute("data-drawn", charts.length - undrawn.length);
document.body.setAttribute("data-undrawn", undrawn.map(c => c.dataset.chart).join(" "));
</script>
JS
  grep -v 'Content-Security-Policy' "$report" |
    awk -v probe="$dir/probe.js" '/<\/body>/ { while ((getline line < probe) > 0) print line } { print }' >"$probe"
  run_browser --dump-dom "file://$probe" >"$dir/probe-dom.html" 2>/dev/null || fail "$label: probe did not load"
  charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' "$dir/probe-dom.html" | head -1)
  drawn=$(sed -n 's/.*data-drawn="\([0-9]*\)".*/\1/p' "$dir/probe-dom.html" | head -1)
  undrawn=$(sed -n 's/.*data-undrawn="\([^"]*\)".*/\1/p' "$dir/probe-dom.html" | head -1)
  [ "$charts" = 6 ] || fail "$label: $charts charts in the page, expected 6"
  [ "$drawn" = 6 ] || fail "$label: only $drawn of 6 charts drew marks (not drawn: $undrawn)"

  run_browser --window-size=1000,7000 --screenshot="$dir/shot.png" "file://$report" >/dev/null 2>&1 || fail "$label: no screenshot"
  "$python" - "$dir/shot.png" "$label" <<'PY' || exit 1
import sys
from PIL import Image
image = Image.open(sys.argv[1]).convert("RGB")
counts = {}
for colour, n in image.getcolors(maxcolors=1 << 24):
    counts[n] = counts.get(n, 0) + colour
want = {"CPU blue": (31, 119, 180), "GPU red": (214, 39, 40), "copies orange": (255, 127, 14)}
missing = [name for name, rgb in want.items() if counts.get(rgb, 0) < 200]
if missing:
    print(f"FAIL: {sys.argv[2]}: screenshot lacks {', '.join(missing)} pixels: charts did not paint")
    sys.exit(1)
print(f"{sys.argv[2]}: screenshot {image.size[0]}x{image.size[1]}, " +
      ", ".join(f"{name} {counts[rgb]} px" for name, rgb in want.items()))
PY
  run_browser --no-pdf-header-footer --print-to-pdf="$dir/print.pdf" "file://$report" >/dev/null 2>&1 || fail "$label: cannot print"
  pages=$(grep -ac "/Type /Page$\|/Type /Page[^s]" "$dir/print.pdf")
  [ "$pages" -ge 2 ] || fail "$label: printed to $pages page(s)"
  echo "$label: $drawn/$charts charts drawn, no console message, printed to $pages pages"
}

(cd "$dir" && "$bin" --no-smoke-test >tour.out 2>&1) || fail "tour failed: $(cat "$dir/tour.out")"
check_report "$dir/gpuprobe-report.html" "tour report"
"$bin" report --from "$fixtures/report/tour-cpu-2core.json" -o "$dir/saved.html" >/dev/null 2>&1 || fail "report --from failed"
check_report "$dir/saved.html" "report from saved documents"
echo "report render: ok"
