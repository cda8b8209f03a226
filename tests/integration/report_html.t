#!/bin/sh
# report_html: `pfsread report --html` writes one self-contained page; headless Chromium loads
# it with no console error and finds every chart drawn (the page's own check sets
# data-charts-rendered="drawn/total" on <body>). Skips when Chromium is not installed.
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (Debian: apt-get install chromium)"
"$PYTHON" -c 'import h5py' 2>/dev/null || skip_all "python3 with h5py is not installed"
command -v gnuplot >/dev/null 2>&1 || skip_all "gnuplot is not installed"

# browse PAGE: load it headless; the DOM after load into $SCRATCH/dom, the log into $SCRATCH/log.
browse() {
	profile=$(mktemp -d "$SCRATCH/profile.XXXXXX")
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 --virtual-time-budget=5000 --window-size=${SIZE:-1400,1000} \
		--dump-dom "file://$1${2:-}" \
		>"$SCRATCH/dom" 2>"$SCRATCH/log"
}

check "report_h5.py writes the hand-made results files" \
	"$PYTHON" "$TOP/tests/integration/report_h5.py" "$SCRATCH"
mkdir -p "$SCRATCH/tmp"
expect_status 0 "report a.h5 b.h5 --html page.html" env TMPDIR="$SCRATCH/tmp" \
	"$PFSREAD" report "$SCRATCH/a.h5" "$SCRATCH/b.h5" --html "$SCRATCH/page.html"
contains "HTML page written to $SCRATCH/page.html" "--html says where it wrote"
test -z "$(ls -A "$SCRATCH/tmp")"
ok_status $? "the scratch chart directory is removed"
! sed -E 's/xmlns(:[a-z]+)?="[^"]*"//g' "$SCRATCH/page.html" |
	grep -Eq '<(link|img|iframe|object|embed)|src=|https?://'
ok_status $? "the page loads nothing from outside (no link, img, src or URL but XML namespaces)"
grep -q "hardware: {node_link_MBps: 100" "$SCRATCH/page.html" && grep -q "environment" "$SCRATCH/page.html"
ok_status $? "the page holds the run's config and environment"

browse "$SCRATCH/page.html" "#check"
ok_status $? "chromium loads the page"
grep -q '<nav><a href="#comparison">comparison</a><a href="#run-0">' "$SCRATCH/page.html"
ok_status $? "a navigation bar: the comparison, then each run"
cmp_at=$(grep -n '<section id="comparison">' "$SCRATCH/page.html" | cut -d: -f1)
run_at=$(grep -n '<section class="run" id="run-0">' "$SCRATCH/page.html" | cut -d: -f1)
test -n "$cmp_at" && test -n "$run_at" && test "$cmp_at" -lt "$run_at"
ok_status $? "the comparison comes before the runs ($cmp_at < $run_at)"
n=$(grep -c '<details' "$SCRATCH/page.html")
test "$n" -eq 6
ok_status $? "charts, details and environment fold away under each run ($n <details>)"
grep -q 'data-charts-rendered="9/9"' "$SCRATCH/dom"
ok_status $? "every chart present and drawn: $(grep -o 'data-charts-rendered="[^"]*"' "$SCRATCH/dom")"
n=$(grep -c ':CONSOLE' "$SCRATCH/log")
test "$n" -eq 0
ok_status $? "no console message ($n)"
[ "$n" -eq 0 ] || grep ':CONSOLE' "$SCRATCH/log" | head -n 5 | sed 's/^/#   /'
grep -q '<table>' "$SCRATCH/dom" && grep -q 'statistics per cell' "$SCRATCH/dom"
ok_status $? "the tables are there"

# the checks above can fail: a page with a script error and an empty chart is caught
cat >"$SCRATCH/bad.html" <<'HTML'
<!DOCTYPE html><html><body><figure class="chart"><svg xmlns="http://www.w3.org/2000/svg"></svg>
</figure><script>nosuch();</script></body></html>
HTML
browse "$SCRATCH/bad.html"
grep -q ':CONSOLE' "$SCRATCH/log"
ok_status $? "a script error on a page shows in the log (the console check works)"

expect_status 0 "--plot and --html together" "$PFSREAD" report "$SCRATCH/a.h5" \
	--plot "$SCRATCH/plots" --html "$SCRATCH/one.html"
browse "$SCRATCH/one.html" "#check"
grep -q 'data-charts-rendered="4/4"' "$SCRATCH/dom" && test -f "$SCRATCH/plots/a-timeline.png"
ok_status $? "one run: 4 charts drawn, the PNGs kept in the plot directory"
SIZE=1280,800 browse "$SCRATCH/one.html"
b=$(grep -o 'data-answer-chart-bottom="[0-9]*"' "$SCRATCH/dom" | tr -dc 0-9)
test -n "$b" && test "$b" -le 800
ok_status $? "one run at 1280x800: the answer and the main chart are in the first screen (end at ${b:-?} px)"
a_at=$(grep -n '<section id="answer">' "$SCRATCH/one.html" | cut -d: -f1)
c_at=$(grep -n '<figure class="chart" id="a-bandwidth">' "$SCRATCH/one.html" | cut -d: -f1)
d_at=$(grep -n '<details' "$SCRATCH/one.html" | head -1 | cut -d: -f1)
r_at=$(grep -n '<section class="run"' "$SCRATCH/one.html" | cut -d: -f1)
test -n "$a_at" && test -n "$c_at" && test -n "$d_at" && test "$a_at" -lt "$c_at" &&
	test "$c_at" -lt "$r_at" && test "$c_at" -lt "$d_at"
ok_status $? "the answer, then the main chart, unfolded, before the run's section (${a_at:-?} < ${c_at:-?} < ${r_at:-?})"
grep -q '<li class="cell"><b>cold: best: big x 2 readers/node: 300 MB/s = 188% of 160 (server disks, declared): ABOVE it, the ceiling is contradicted</b></li>' "$SCRATCH/one.html"
ok_status $? "the answer's best cell, its share of the ceiling, the limit, and that the ceiling is contradicted"
done_testing
