#!/usr/bin/env python3
"""Writes the synthetic core sweep of the scalability fixtures (cores/) from templates/.

templates/c1-t8-r{1,2,3}.json are real results: the 8-thread oltp_read_only cells
of the three rounds on 1 server CPU of a server_cpus sweep (a managed MariaDB
10.11 on a 2-CPU VM, 4 x 50,000 rows, 10 s, 5 s warm-up), as the suite wrote
them. A 2-CPU machine cannot sweep 1..16 CPUs, so the figures here are not
measured: each cell's throughput comes from a known Universal Scalability Law
model with multiplicative log-normal noise,

    X(N) = LAMBDA * N / (1 + SIGMA * (N - 1) + KAPPA * N * (N - 1)) * exp(e),
    e ~ Normal(0, NOISE_SD), drawn from random.Random(SEED) in file order,

and every figure derived from throughput follows it: counts (events, queries,
reads, others) and tps/qps of the totals, the warm-up and every interval are
scaled by the cell's factor (the interval series keeps the template's shape);
latencies (totals, service, warm-up, interval percentiles and maxima) by the
closed-loop ratio (THREADS / tps) / (8 / template tps); fairness events by
events / THREADS. The CPU set is written consistently where fairbench reads
it (internal/analysis/cpus.go: cpuSetOf, pinnedCPUs; undertest.go):
suite.server_cpus {count, smt, placement, cpu_list, cpus, cores},
managed_server.cpu_list and server_machines[0].cpu_list, so every file is
filed as cpus=N. The machine (machine, server_machines[0]) is the template's
with 16 logical CPUs on 16 cores, as a box that can give 16 CPUs would be.
What the templates measured of the 2-CPU machine and would contradict the
model is left out: observed, the latency histograms, and the warnings and
notes about other processes' and the client's CPU use.

Run it from this directory: python3 gen.py  (it rewrites cores/ alone; the
output is deterministic).
"""
import copy
import datetime
import json
import math
import os
import random

SIGMA = 0.05     # contention
KAPPA = 0.002    # coherency
LAMBDA = 910.7   # tps on 1 CPU: the mean of the templates' three rounds (772.3, 1123.2, 836.6)
NOISE_SD = 0.03  # sd of the log of the multiplicative noise
SEED = 32
CPUS = (1, 2, 3, 4, 6, 8, 12, 16)
ROUNDS = 3
THREADS = 32     # every cell's thread count: at least every CPU count
MACHINE_CPUS = 16
PLAN = "is32-cores-synthetic"
START = datetime.datetime(2026, 11, 28, 3, 0, 0, tzinfo=datetime.timezone.utc)
CELL_SPACING = 20  # seconds between cells' starts

COUNT_KEYS = ("events", "queries", "reads", "writes", "others")


def usl(n):
    """The model's throughput at n CPUs."""
    return LAMBDA * n / (1 + SIGMA * (n - 1) + KAPPA * n * (n - 1))


def cpu_list(n):
    return "0" if n == 1 else "0-%d" % (n - 1)


def scale_counts(counts, events):
    """Counts of a phase with events events, each kind in the template's ratio."""
    old = counts["events"]
    out = dict(counts)
    for k in COUNT_KEYS:
        out[k] = events if k == "events" else (round(counts[k] * events / old) if old else 0)
    out["reconnects"] = 0
    return out


def scale_latency(lat, f):
    out = dict(lat)
    for k in ("min_ms", "avg_ms", "max_ms"):
        if k in out:
            out[k] = round(out[k] * f, 6)
    if "percentiles_ms" in out:
        out["percentiles_ms"] = {p: round(v * f, 3) for p, v in out["percentiles_ms"].items()}
    out.pop("histogram", None)
    return out


def scale_phase(ph, tps_factor, lat_factor):
    """A Phase (totals or warmup) of tps_factor times the throughput."""
    ph = copy.deepcopy(ph)
    secs = ph["seconds"]
    events = round(ph["counts"]["events"] * tps_factor)
    ph["counts"] = scale_counts(ph["counts"], events)
    ph["tps"] = round(events / secs, 6)
    ph["qps"] = round(ph["counts"]["queries"] / secs, 6)
    for k in ("latency", "service"):
        if k in ph:
            ph[k] = scale_latency(ph[k], lat_factor)
            ph[k]["sum_ms"] = round(ph[k]["avg_ms"] * events, 6)
    if "fairness" in ph:
        fa = ph["fairness"]
        old_avg = fa["events_avg"]
        fa["events_avg"] = events / THREADS
        fa["events_stddev"] = fa["events_stddev"] * fa["events_avg"] / old_avg if old_avg else 0
    return ph


def cell(template, n, rnd, index, tps):
    r = copy.deepcopy(template)
    old_tps = template["totals"]["tps"]
    f = tps / old_tps
    lat = (THREADS / tps) / (template["threads"] / old_tps)

    r.pop("observed", None)
    r.pop("warnings", None)
    r.pop("notes", None)
    r["threads"] = THREADS
    r["options"]["threads"] = str(THREADS)
    r["totals"] = scale_phase(template["totals"], f, lat)
    # the drawn figure itself, not the figure of rounded counts
    r["totals"]["tps"] = tps
    r["totals"]["qps"] = round(tps * template["totals"]["qps"] / old_tps, 6)
    if "warmup" in r:
        r["warmup"] = scale_phase(template["warmup"], f, lat)
    for iv in r["intervals"]:
        events = round(iv["counts"]["events"] * f)
        iv["threads"] = THREADS
        iv["counts"] = scale_counts(iv["counts"], events)
        iv["tps"] = round(events / iv["seconds"], 6)
        iv["qps"] = round(iv["counts"]["queries"] / iv["seconds"], 6)
        iv["latency_ms"] = {p: round(v * lat, 6) for p, v in iv["latency_ms"].items()}
        if "max_ms" in iv:
            iv["max_ms"] = round(iv["max_ms"] * lat, 6)
        iv.pop("histogram", None)

    for m in [r["machine"], r["server_machines"][0]]:
        m["logical_cpus"] = MACHINE_CPUS
        m["cores"] = MACHINE_CPUS
        m["sockets"] = 1
        m["threads_per_core"] = 1
        m["hostname"] = "synthetic-16cpu"
    cl = cpu_list(n)
    r["server_machines"][0]["cpu_list"] = cl
    r["managed_server"]["cpu_list"] = cl
    r["suite"] = {
        "plan": PLAN,
        "plan_hash": "0" * 64,
        "cell": "cpu-bound/c%d/uniform/r%d/oltp_read_only/t%d" % (n, rnd, THREADS),
        "index": index,
        "round": rnd,
        "profile": "cpu-bound",
        "server_cpus": {"count": n, "smt": "all", "placement": "packed", "cpu_list": cl, "cpus": n, "cores": n},
    }
    start = START + datetime.timedelta(seconds=CELL_SPACING * (index - 1))
    end = start + datetime.timedelta(seconds=r["totals"]["seconds"])
    r["start"] = start.isoformat().replace("+00:00", "Z")
    r["end"] = end.isoformat().replace("+00:00", "Z")
    return r


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    templates = [json.load(open(os.path.join(here, "templates", "c1-t8-r%d.json" % i))) for i in range(1, ROUNDS + 1)]
    out = os.path.join(here, "cores")
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    rng = random.Random(SEED)
    index = 0
    for n in CPUS:  # as a sweep runs: per CPU set, its rounds
        for rnd in range(1, ROUNDS + 1):
            index += 1
            tps = round(usl(n) * math.exp(rng.gauss(0, NOISE_SD)), 2)
            r = cell(templates[rnd - 1], n, rnd, index, tps)
            name = "%04d-cpu-bound-c%d-uniform-r%d-oltp_read_only-t%d.json" % (index, n, rnd, THREADS)
            with open(os.path.join(out, name), "w") as fh:
                json.dump(r, fh, indent=2, ensure_ascii=False)
                fh.write("\n")


if __name__ == "__main__":
    main()
