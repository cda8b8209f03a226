#!/bin/sh
# layers: the house rules of src/ stay true. Folders are stages, lowest first: util < config <
# dataset < run (with run/backends) < results < report < cmd < main.c. From the object files'
# symbols (nm): no module uses a function or variable of a later stage, and no modules use
# each other in a circle (within a folder too). From the sources: no file includes a header of
# a later stage, no .c file is over 700 lines and no function body over 80. The build whose
# objects are read is the one beside $PFSREAD (build/src/**/*.o); LAYERS_OBJ=DIR reads another.
. "$(dirname "$0")/lib.sh"

OBJ=${LAYERS_OBJ:-$(dirname "$PFSREAD")}
command -v nm >/dev/null 2>&1 || skip_all "no nm (binutils)"
[ -x "$PYTHON" ] || skip_all "no $PYTHON"
missing=$(cd "$TOP" && find src -name '*.c' | while read -r c; do
	[ -f "$OBJ/${c%.c}.o" ] || echo "$c"
done | head -n 1)
[ -z "$missing" ] || skip_all "no object for $missing under $OBJ (build first)"

"$PYTHON" - "$TOP" "$OBJ" <<'EOF'
import os, re, subprocess, sys

top, obj = sys.argv[1], sys.argv[2]
STAGES = ["util", "config", "dataset", "run", "results", "report", "cmd", "main"]
LINES_MAX = 700
FUNC_LINES_MAX = 80
n = 0
failed = 0

def ok(good, what, detail=()):
    global n, failed
    n += 1
    print("%s %d - %s" % ("ok" if good else "not ok", n, what))
    if not good:
        failed += 1
        for line in list(detail)[:40]:
            print("#   " + line)

def stage(path):
    """The stage of a file under src/ (run/backends is run), or of include/ (-1: lowest)."""
    parts = path.split("/")
    if parts[0] == "pfsread":
        return -1, "include/pfsread"
    if len(parts) == 1:
        return STAGES.index("main"), "main"
    return STAGES.index(parts[0]), parts[0]

sources = []
for d, _, fs in os.walk(os.path.join(top, "src")):
    for f in fs:
        if f.endswith((".c", ".h")):
            sources.append(os.path.relpath(os.path.join(d, f), os.path.join(top, "src")))
sources.sort()
mods = [s[:-2] for s in sources if s.endswith(".c")]

# every folder is a known stage
ok(all(len(m.split("/")) == 1 or m.split("/")[0] in STAGES for m in sources),
   "every file of src/ sits in a stage's folder",
   [m for m in sources if len(m.split("/")) > 1 and m.split("/")[0] not in STAGES])

# symbols: who defines what, who uses what
def nm(args, o):
    out = subprocess.run(["nm"] + args + [o], capture_output=True, text=True, check=True)
    return [l.split()[-1] for l in out.stdout.splitlines() if l.strip()]

defined, used = {}, {}
for m in mods:
    o = os.path.join(obj, "src", m + ".o")
    for s in nm(["-g", "--defined-only"], o):
        defined[s] = m
    used[m] = set(nm(["-u"], o))
edges = {m: {} for m in mods}
for m in mods:
    for s in used[m]:
        d = defined.get(s)
        if d is not None and d != m:
            edges[m].setdefault(d, []).append(s)

upward = []
for a in mods:
    for b, syms in sorted(edges[a].items()):
        if stage(a)[0] < stage(b)[0]:
            upward.append("%s (%s) uses %s of %s (%s)" % (a, stage(a)[1], ", ".join(sorted(syms)),
                                                          b, stage(b)[1]))
ok(not upward, "no module uses a symbol of a later stage", upward)

# circles: strongly connected components of more than one module (Tarjan)
index, low, onstack, st, sccs, counter = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]
    counter[0] += 1
    st.append(v)
    onstack.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in onstack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = st.pop()
            onstack.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
for v in mods:
    if v not in index:
        visit(v)
detail = []
for comp in sccs:
    detail.append("circle: " + " <-> ".join(comp))
    for a in comp:
        for b in comp:
            if b in edges[a]:
                detail.append("  %s uses %s of %s" % (a, ", ".join(sorted(edges[a][b])), b))
ok(not sccs, "no modules use each other in a circle", detail)

# includes: a header of a later stage is an upward dependency too (a type, a constant)
bad, unknown = [], []
for s in sources:
    text = open(os.path.join(top, "src", s), errors="replace").read()
    for h in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M):
        if h.startswith("pfsread/"):
            if not os.path.exists(os.path.join(top, "include", h)):
                unknown.append("%s includes %s" % (s, h))
            continue
        if not os.path.exists(os.path.join(top, "src", h)):
            unknown.append("%s includes %s (not src/%s: include by folder)" % (s, h, h))
            continue
        if stage(s)[0] < stage(h)[0]:
            bad.append("%s (%s) includes %s (%s)" % (s, stage(s)[1], h, stage(h)[1]))
ok(not unknown, "every included header is named by its folder under src/ (or is pfsread/)",
   unknown)
ok(not bad, "no file includes a header of a later stage", bad)

# size
long = []
for s in sources:
    if s.endswith(".c"):
        k = sum(1 for _ in open(os.path.join(top, "src", s), errors="replace"))
        if k > LINES_MAX:
            long.append("src/%s: %d lines" % (s, k))
ok(not long, "no .c file in src/ is over %d lines" % LINES_MAX, long)

# functions: a body runs from its opening brace at the start of a line (or a signature line
# ending in ") {") to the next closing brace at the start of a line; counted are the lines
# between them
def functions(path):
    """(name, first line, body lines) of each function defined in the .c file path."""
    lines = open(path, errors="replace").read().split("\n")
    found, i = [], 0
    while i < len(lines):
        line = lines[i]
        opens = line == "{" or (re.match(r"[A-Za-z_].*\)\s*\{\s*$", line) is not None and
                                "=" not in line)
        if not opens:
            i += 1
            continue
        sig, j = line[:-1] if line != "{" else "", i - 1
        while line == "{" and j >= 0 and lines[j].strip() and \
                not lines[j].startswith(("}", "#", "/*", " *")):
            sig = lines[j] + " " + sig
            j -= 1
        names = re.findall(r"(\w+)\s*\(", sig)
        k = i + 1
        while k < len(lines) and lines[k] != "}":
            k += 1
        found.append((names[0] if names else "?", i + 1, k - i - 1))
        i = k + 1
    return found

over = []
for s in sources:
    if s.endswith(".c"):
        for name, at, body in functions(os.path.join(top, "src", s)):
            if body > FUNC_LINES_MAX:
                over.append("src/%s:%d: %s: %d lines" % (s, at, name, body))
ok(not over, "no function in src/ is over %d lines" % FUNC_LINES_MAX, over)

print("1..%d" % n)
sys.exit(1 if failed else 0)
EOF
