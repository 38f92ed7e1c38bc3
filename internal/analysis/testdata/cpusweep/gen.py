#!/usr/bin/env python3
"""Writes the core-scaling sweep fixtures of cpus_test.go from template.json.

template.json is the result of a real run (fairbench run oltp_point_select
against MariaDB 10.11 through its socket, 2 threads, 2 s), its histograms and
observed section left out. Each fixture is that result as a cell of a
server_cpus sweep would write it: suite.server_cpus, managed_server.cpu_list,
the server_machines entry's cpu_list, the machine of a larger box, and the
throughput of a made-up scaling model (not measured: the tests check the
arithmetic on known figures). Run it from this directory: python3 gen.py
"""
import copy, json, os

T = json.load(open("template.json"))
T.pop("observed", None)
T["totals"]["latency"].pop("histogram", None)
for iv in T["intervals"]:
    iv.pop("histogram", None)
T.pop("data", None)

X86 = {"arch": "amd64", "cpu_model": "Intel(R) Xeon(R) Gold 6266C CPU @ 3.00GHz", "vendor": "Intel",
       "logical_cpus": 32, "cores": 16, "sockets": 2, "threads_per_core": 2, "max_mhz": 3900, "hostname": "x86-db"}
ARM = {"arch": "arm64", "cpu_model": "Kunpeng-920", "vendor": "HiSilicon", "core": "TaiShan-v110",
       "logical_cpus": 16, "cores": 16, "sockets": 1, "threads_per_core": 1, "max_mhz": 2600, "hostname": "arm-db"}

def x86_list(n, smt):
    # 2 sockets × 8 cores × 2 threads; CPU i and i+16 are siblings.
    if smt == "one-per-core":
        return ",".join(str(i) for i in range(n)), n, n
    cores = max(1, n // 2)
    cpus = [i for c in range(cores) for i in (c, c + 16)][:n]
    return ",".join(str(i) for i in cpus), n, cores

def arm_list(n, smt):
    return ",".join(str(i) for i in range(n)), n, n

def write(dirname, machine, lists, plan, model, sweeps, rounds):
    os.makedirs(dirname, exist_ok=True)
    for f in os.listdir(dirname):
        os.remove(os.path.join(dirname, f))
    index = 0
    for smt in sweeps:
        for count in (1, 2, 4):
            cpu_list, cpus, cores = lists(count, smt)
            for threads in (1, 2, 4):
                for rnd, wobble in enumerate(rounds, start=1):
                    index += 1
                    r = copy.deepcopy(T)
                    tps = round(model(count, smt, threads) * wobble, 1)
                    r["threads"] = threads
                    r["options"]["threads"] = str(threads)
                    r["totals"]["tps"] = r["totals"]["qps"] = tps
                    r["totals"]["counts"]["events"] = r["totals"]["counts"]["queries"] = r["totals"]["counts"]["reads"] = int(tps * 2)
                    for iv in r["intervals"]:
                        iv["threads"] = threads
                        iv["tps"] = iv["qps"] = tps
                    m = dict(T["machine"]); m.update(machine)
                    r["machine"] = m
                    sm = dict(T["server_machines"][0]); sm.update(machine); sm["cpu_list"] = cpu_list
                    r["server_machines"] = [sm]
                    r["managed_server"] = {"flavor": "mariadb", "profile": "default", "cpu_list": cpu_list}
                    cell = "default/uniform/c%d%s/r%d/oltp_point_select/t%d" % (count, "" if smt == "all" else "-" + smt, rnd, threads)
                    r["suite"] = {"plan": plan, "plan_hash": "0" * 64, "cell": cell, "index": index, "round": rnd, "profile": "default",
                                  "server_cpus": {"count": count, "smt": smt, "placement": "packed", "cpu_list": cpu_list, "cpus": cpus, "cores": cores}}
                    name = "c%d%s-t%d-r%d.json" % (count, "" if smt == "all" else "-1pc", threads, rnd)
                    with open(os.path.join(dirname, name), "w") as out:
                        json.dump(r, out, separators=(",", ":"))
                        out.write("\n")

# x86: both SMT modes. A core gives 5000 tps alone, 6500 with its sibling;
# 4 one-per-core CPUs lose 5 % to sharing. Fewer threads than CPUs leave
# CPUs idle; more threads than CPUs cost 3 %.
def x86_model(count, smt, threads):
    cap = {("all", 1): 5000, ("all", 2): 6500, ("all", 4): 13000,
           ("one-per-core", 1): 5000, ("one-per-core", 2): 10000, ("one-per-core", 4): 19000}[(smt, count)]
    return cap * min(1.0, threads / count) * (0.97 if threads > count else 1.0)

# arm: no SMT (smt all is one thread per core); 2 cores beat twice one
# (a larger share of the shared cache): 107 % per CPU.
def arm_model(count, smt, threads):
    cap = {1: 4000, 2: 8560, 4: 15200}[count]
    return cap * min(1.0, threads / count) * (0.97 if threads > count else 1.0)

write("x86", X86, x86_list, "core-scaling", x86_model, ("all", "one-per-core"), (0.99, 1.01))
write("arm", ARM, arm_list, "core-scaling", arm_model, ("all",), (0.98, 1.0, 1.02))
