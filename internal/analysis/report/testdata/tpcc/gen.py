#!/usr/bin/env python3
"""Writes the TPC-C fixture of the report tests (tpcc_test.go) from template.json.

template.json is the result of a real run, trimmed: fairbench run tpcc against
MariaDB 10.11 through its socket (1 warehouse, 2 threads, 2 s warm-up, 4 s
measured, 1 s intervals), its histograms, observed section and most echoed
options left out. Each fixture file is that result as a round of a TPC-C
comparison would write it: ARM (Graviton2) and x86 machines under test of
seed 003 (TiDB on EKS), at seed 003's thread counts, with seed 003's published
TPC-C "Medium1" tpmC as the mean of four rounds spread by a fixed pattern
(made-up spread, published means: not measured here; the tests check what
the report makes of known figures). Every count, rate and interval of the
template is scaled by the same factor, so that tps, qps, tpmC and the
intervals agree, and every latency by Little's law (threads ÷ throughput). Run it from this directory: python3 gen.py
"""
import copy, json, os

T = json.load(open("template.json"))

# seed 003, TPC-C Medium1 (internal/analysis/cost/seed003_test.go): tpmC by threads.
THREADS = [150, 300, 500, 800, 1000]
TPMC = {"x86": [34407.8, 49379.5, 53965.8, 54459.9, 52319.8],
        "arm": [32089.5, 52382.1, 55479.4, 53914.1, 56058.6]}
ROUNDS = [-0.015, -0.005, 0.005, 0.015]

MACHINES = {
    "x86": {"arch": "amd64", "cpu_model": "Intel(R) Xeon(R) Platinum 8275CL CPU @ 3.00GHz", "vendor": "Intel",
            "logical_cpus": 8, "cores": 4, "sockets": 1, "threads_per_core": 2, "mhz": 3000, "max_mhz": 3600,
            "memory_bytes": 16 << 30, "hostname": "tidb-x86", "instance_type": "c5.2xlarge", "region": "us-west-2"},
    "arm": {"arch": "arm64", "cpu_model": "Neoverse-N1", "vendor": "ARM", "logical_cpus": 8, "cores": 8, "sockets": 1,
            "threads_per_core": 1, "mhz": 2500, "max_mhz": 2500, "memory_bytes": 16 << 30, "hostname": "tidb-arm",
            "instance_type": "c6g.2xlarge", "region": "us-west-2"},
}
DROP = ("features", "bogomips", "pid", "process", "container", "virtualization")

def scale(x, f):
    """Scales every rate and count of a phase or interval by f."""
    for k in ("tps", "qps"):
        if k in x:
            x[k] = round(x[k] * f, 2)
    for k, v in x.get("counts", {}).items():
        if k != "reconnects":
            x["counts"][k] = int(round(v * f))
    for kd in x.get("kinds", []) or []:
        if isinstance(kd, dict):
            kd["events"] = int(round(kd["events"] * f))
            kd["tps"] = round(kd["tps"] * f, 2)
    if "kind_events" in x:
        x["kind_events"] = [int(round(v * f)) for v in x["kind_events"]]

def stretch(x, k, f):
    """Multiplies every latency (ms) under x by k; sums of latencies also by
    the count's factor f."""
    if isinstance(x, dict):
        for key, v in x.items():
            if isinstance(v, (int, float)) and (key.endswith("_ms") or key.replace(".", "").isdigit()):
                x[key] = round(v * k * (f if key == "sum_ms" else 1), 3)
            else:
                stretch(v, k, f)
    elif isinstance(x, list):
        for v in x:
            stretch(v, k, f)

base_tpmc = next(f["value"] for f in T["figures"] if f["name"] == "tpmC")
for system, figures in TPMC.items():
    os.makedirs(system, exist_ok=True)
    for f in os.listdir(system):
        os.remove(os.path.join(system, f))
    n = 0
    for threads, tpmc in zip(THREADS, figures):
        for rnd, dev in enumerate(ROUNDS, start=1):
            n += 1
            r = copy.deepcopy(T)
            want = tpmc * (1 + dev)
            f = want / base_tpmc
            r["threads"] = threads
            r["options"]["threads"] = str(threads)
            r["options"]["warehouses"] = "100"
            r["command_line"] = ["fairbench", "run", "tpcc", "--warehouses=100", "--threads=%d" % threads, "--time=4",
                                 "--warmup-time=2", "--report-interval=1", "--output=%s/t%d-r%d.json" % (system, threads, rnd)]
            # Little's law: latency grows with the threads and shrinks with
            # the throughput.
            k = threads / T["threads"] / f
            for phase in (r["totals"], r["warmup"]):
                scale(phase, f)
                stretch(phase, k, f)
            for iv in r["intervals"]:
                iv["threads"] = threads
                scale(iv, f)
                stretch({"latency_ms": iv["latency_ms"], "max_ms": iv["max_ms"]}, k, f)
                iv["max_ms"] = round(iv["max_ms"] * k, 3)
            for fig in r["figures"]:
                fig["value"] = round(fig["value"] * f, 2) if fig["name"] != "tpmC" else round(want, 1)
            m = {k: v for k, v in T["machine"].items() if k not in DROP}
            m.update({"hostname": "bench", "instance_type": "c5.4xlarge", "region": "us-west-2"})
            r["machine"] = m
            sm = {k: v for k, v in T["server_machines"][0].items() if k not in DROP}
            sm.update(MACHINES[system])
            sm["source"] = "flags"
            r["server_machines"] = [sm]
            r["notes"] = []
            r["start"] = "2021-03-0%dT%02d:%02d:00Z" % (1 if system == "x86" else 2, n // 60, n % 60)
            with open(os.path.join(system, "t%04d-r%d.json" % (threads, rnd)), "w") as out:
                json.dump(r, out, separators=(",", ":"))
                out.write("\n")
