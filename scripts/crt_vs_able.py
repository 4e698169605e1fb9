# usage: crt_vs_able.py ROUNDS NEW OLD ABLE: gadget_speed CRT of two builds and ABLE's able_speed, interleaved, order reversed every other round; medians, best runs and per-round paired ratios (docs/arithmetic.md)
import subprocess, sys, statistics, re, os
rounds = int(sys.argv[1]); progs = sys.argv[2:5]
rows = {'new': 'CRT product, 16 bits', 'old': 'CRT product, 16 bits', 'able': 'ABLE OPT product 16 bits'}
mux = {'new': 'CRT mux, 16 bits', 'old': 'CRT mux, 16 bits', 'able': 'ABLE OPT mux 16 bits'}
names = ['new', 'old', 'able']
res = {n: [] for n in names}
loads = []
for r in range(rounds):
    order = list(zip(names, progs))
    if r % 2: order = order[::-1]
    rec = {}
    for n, p in order:
        out = subprocess.run([p] + ([] if n == 'able' else ['CRT']), capture_output=True, text=True).stdout
        d = {}
        for line in out.splitlines():
            m = re.match(r'(.+?)\s+([\d.]+)\s+([\d.]+)\s+(\d+)', line)
            if m: d[m.group(1).strip()] = (float(m.group(2)), float(m.group(3)))
        res[n].append(d)
    loads.append(os.getloadavg()[0])
def col(n, table, k): return [d[table[n]][k] for d in res[n]]
for label, table in [('product', rows), ('mux', mux)]:
    print(label)
    for n in names:
        g, e = col(n, table, 0), col(n, table, 1)
        print(f"  {n:5} median {statistics.median(g):6.2f} / {statistics.median(e):5.2f}   best {min(g):6.2f} / {min(e):5.2f}")
    for k, what in [(0, 'garble'), (1, 'evaluate')]:
        a, nw, od = col('able', table, k), col('new', table, k), col('old', table, k)
        pr = statistics.median([x / y for x, y in zip(a, nw)])
        po = statistics.median([x / y for x, y in zip(a, od)])
        print(f"  {what}: ABLE/new medians {statistics.median(a)/statistics.median(nw):.2f}x best {min(a)/min(nw):.2f}x paired-median {pr:.2f}x | ABLE/old medians {statistics.median(a)/statistics.median(od):.2f}x best {min(a)/min(od):.2f}x paired {po:.2f}x")
print(f"rounds {rounds}, 1-min load {min(loads):.1f}-{max(loads):.1f}")
