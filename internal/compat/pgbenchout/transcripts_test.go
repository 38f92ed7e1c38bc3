// Code written by hand from the figures of the real pgbench 15.20 runs of
// testdata/pgbench-15 (whose files keep only their layout: digits masked).

package pgbenchout

import (
	"fmt"
	"io"
)

// transcripts render, for each recorded run, its figures in pgbench's
// output: the banner, the vacuum line, the progress lines and the report.
var transcripts = []struct {
	name  string
	write func(w io.Writer)
}{
	{"prepared", func(w io.Writer) { // $ pgbench -c 4 -j 2 -T 6 -P 2 -M prepared bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 1047.9, LatencyMs: 3.793, StddevMs: 3.885, Failed: 0})
		WriteProgress(w, Progress{Elapsed: 4.0, TPS: 554.0, LatencyMs: 7.156, StddevMs: 5.578, Failed: 0})
		WriteProgress(w, Progress{Elapsed: 6.0, TPS: 505.5, LatencyMs: 7.969, StddevMs: 45.483, Failed: 0})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "prepared",
			Clients:         4,
			Threads:         2,
			MaxTries:        1,
			Duration:        6,
			Processed:       4217,
			LatencyMeasured: true,
			LatencyAvgMs:    5.680,
			LatencyStddevMs: 22.699,
			ConnectionMs:    14.058,
			TPS:             703.699705,
		})
	}},
	{"select-only-r", func(w io.Writer) { // $ pgbench -S -c 2 -t 500 -r bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: select only>", Weight: 1, Statements: []Statement{
					{LatencyMs: 0.000, Failures: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.119, Failures: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
				}},
			},
			Scale:                 2,
			QueryMode:             "simple",
			Clients:               2,
			Threads:               1,
			MaxTries:              1,
			TransactionsPerClient: 500,
			Processed:             1000,
			LatencyAvgMs:          0.130,
			ConnectionMs:          15.137,
			TPS:                   15345.190050,
			PerCommand:            true,
		})
	}},
	{"rate-limit", func(w io.Writer) { // $ pgbench -c 2 -T 4 -R 200 -L 5 -P 1 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 1.0, TPS: 203.0, LatencyMs: 3.474, StddevMs: 2.117, Failed: 0, Throttled: true, LagMs: 0.329, LatencyLimit: true, Skipped: 2})
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 199.0, LatencyMs: 3.437, StddevMs: 2.461, Failed: 0, Throttled: true, LagMs: 0.377, LatencyLimit: true, Skipped: 3})
		WriteProgress(w, Progress{Elapsed: 3.0, TPS: 197.0, LatencyMs: 3.241, StddevMs: 2.213, Failed: 0, Throttled: true, LagMs: 0.348, LatencyLimit: true, Skipped: 4})
		WriteProgress(w, Progress{Elapsed: 4.0, TPS: 181.7, LatencyMs: 4.096, StddevMs: 5.266, Failed: 0, Throttled: true, LagMs: 0.295, LatencyLimit: true, Skipped: 5})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "simple",
			Clients:         2,
			Threads:         1,
			MaxTries:        1,
			Duration:        4,
			Processed:       781,
			Throttled:       true,
			Skipped:         14,
			LatencyLimitMs:  5.0,
			LatencyLate:     164,
			LatencyMeasured: true,
			LatencyAvgMs:    3.551,
			LatencyStddevMs: 3.241,
			LagAvgMs:        0.338,
			LagMaxMs:        4.760,
			ConnectionMs:    6.190,
			TPS:             195.457772,
		})
	}},
	{"rate", func(w io.Writer) { // $ pgbench -c 2 -T 3 -R 100 -P 1 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 1.0, TPS: 90.0, LatencyMs: 3.553, StddevMs: 1.699, Failed: 0, Throttled: true, LagMs: 0.091})
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 90.0, LatencyMs: 3.721, StddevMs: 2.247, Failed: 0, Throttled: true, LagMs: 0.120})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "simple",
			Clients:         2,
			Threads:         1,
			MaxTries:        1,
			Duration:        3,
			Processed:       263,
			Throttled:       true,
			LatencyMeasured: true,
			LatencyAvgMs:    3.644,
			LatencyStddevMs: 1.999,
			LagAvgMs:        0.128,
			LagMaxMs:        4.748,
			ConnectionMs:    4.103,
			TPS:             88.277429,
		})
	}},
	{"retries", func(w io.Writer) { // $ pgbench -c 4 -T 4 --max-tries=3 --failures-detailed -P 2 -r bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 688.9, LatencyMs: 3.936, StddevMs: 6.016, Failed: 302, Retrying: true, Retried: 1027, Retries: 1565})
		WriteProgress(w, Progress{Elapsed: 4.0, TPS: 800.5, LatencyMs: 3.426, StddevMs: 2.778, Failed: 367, Retrying: true, Retried: 1168, Retries: 1789})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1, Statements: []Statement{
					{LatencyMs: 0.001, Failures: 0, Retries: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set bid random(1, 1 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set tid random(1, 10 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set delta random(-5000, 5000)"},
					{LatencyMs: 0.107, Failures: 0, Retries: 0, Text: "BEGIN;"},
					{LatencyMs: 0.214, Failures: 0, Retries: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"},
					{LatencyMs: 0.192, Failures: 0, Retries: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 0.224, Failures: 63, Retries: 324, Text: "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;"},
					{LatencyMs: 0.144, Failures: 606, Retries: 3033, Text: "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;"},
					{LatencyMs: 0.144, Failures: 0, Retries: 0, Text: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);"},
					{LatencyMs: 1.423, Failures: 0, Retries: 0, Text: "END;"},
				}},
			},
			Scale:            2,
			QueryMode:        "simple",
			Clients:          4,
			Threads:          1,
			MaxTries:         3,
			Duration:         4,
			Processed:        2981,
			FailuresDetailed: true,
			Retried:          2195,
			Retries:          3354,
			LatencyMeasured:  true,
			LatencyAvgMs:     3.662,
			LatencyStddevMs:  4.577,
			ConnectionMs:     16.075,
			TPS:              746.818693,
			PerCommand:       true,
			Failures:         Failures{Serialization: 669, Deadlock: 0},
		})
	}},
	{"retries-plain", func(w io.Writer) { // $ pgbench -c 4 -T 4 --max-tries=3 -P 2 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 751.0, LatencyMs: 3.680, StddevMs: 3.032, Failed: 332, Retrying: true, Retried: 1100, Retries: 1696})
		WriteProgress(w, Progress{Elapsed: 4.0, TPS: 677.5, LatencyMs: 4.058, StddevMs: 5.497, Failed: 323, Retrying: true, Retried: 1020, Retries: 1573})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "simple",
			Clients:         4,
			Threads:         1,
			MaxTries:        3,
			Duration:        4,
			Processed:       2859,
			Retried:         2120,
			Retries:         3269,
			LatencyMeasured: true,
			LatencyAvgMs:    3.861,
			LatencyStddevMs: 4.381,
			ConnectionMs:    8.247,
			TPS:             714.857586,
			Failures:        Failures{Serialization: 655, Deadlock: 0},
		})
	}},
	{"multi", func(w io.Writer) { // $ pgbench -b simple-update@2 -b select-only@8 -T 4 -r bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: simple update>", Weight: 2, Processed: 1235, TPS: 304.885048, LatencyAvgMs: 2.812, LatencyStddevMs: 4.982, Statements: []Statement{
					{LatencyMs: 0.001, Failures: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set bid random(1, 1 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set tid random(1, 10 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Text: "\\set delta random(-5000, 5000)"},
					{LatencyMs: 0.049, Failures: 0, Text: "BEGIN;"},
					{LatencyMs: 0.113, Failures: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"},
					{LatencyMs: 0.101, Failures: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 0.080, Failures: 0, Text: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);"},
					{LatencyMs: 2.466, Failures: 0, Text: "END;"},
				}},
				{Desc: "<builtin: select only>", Weight: 8, Processed: 4825, TPS: 1191.150088, LatencyAvgMs: 0.119, LatencyStddevMs: 0.328, Statements: []Statement{
					{LatencyMs: 0.001, Failures: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.118, Failures: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
				}},
			},
			Scale:        2,
			QueryMode:    "simple",
			Clients:      1,
			Threads:      1,
			MaxTries:     1,
			Duration:     4,
			Processed:    6060,
			LatencyAvgMs: 0.668,
			ConnectionMs: 5.577,
			TPS:          1496.035137,
			PerCommand:   true,
		})
	}},
	{"multi-plain", func(w io.Writer) { // $ pgbench -b tpcb-like@1 -b select-only@3 -c 2 -T 3 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1, Processed: 1342, TPS: 447.004338, LatencyAvgMs: 3.946, LatencyStddevMs: 5.990},
				{Desc: "<builtin: select only>", Weight: 3, Processed: 4013, TPS: 1336.682868, LatencyAvgMs: 0.175, LatencyStddevMs: 0.450},
			},
			Scale:        2,
			QueryMode:    "simple",
			Clients:      2,
			Threads:      1,
			MaxTries:     1,
			Duration:     3,
			Processed:    5355,
			LatencyAvgMs: 1.121,
			ConnectionMs: 4.696,
			TPS:          1783.687206,
		})
	}},
	{"timestamp", func(w io.Writer) { // $ pgbench -P 1 --progress-timestamp -T 3 -c 2 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Epoch: 1795853633.416, Timestamp: true, TPS: 255.0, LatencyMs: 7.709, StddevMs: 13.087, Failed: 0})
		WriteProgress(w, Progress{Epoch: 1795853634.416, Timestamp: true, TPS: 261.0, LatencyMs: 7.706, StddevMs: 17.881, Failed: 0})
		WriteProgress(w, Progress{Epoch: 1795853635.416, Timestamp: true, TPS: 441.0, LatencyMs: 4.534, StddevMs: 9.166, Failed: 0})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "simple",
			Clients:         2,
			Threads:         1,
			MaxTries:        1,
			Duration:        3,
			Processed:       959,
			LatencyMeasured: true,
			LatencyAvgMs:    6.243,
			LatencyStddevMs: 13.180,
			ConnectionMs:    10.802,
			TPS:             320.010037,
		})
	}},
	{"custom", func(w io.Writer) { // $ pgbench -f custom.sql@1 -N -D maxdelta=5000 -t 200 -c 2 -r -n bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "custom.sql", Weight: 1, Processed: 207, TPS: 181.803491, LatencyAvgMs: 5.528, LatencyStddevMs: 8.796, Statements: []Statement{
					{LatencyMs: 0.002, Failures: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set delta random(-:maxdelta, :maxdelta)"},
					{LatencyMs: 0.126, Failures: 0, Text: "BEGIN;"},
					{LatencyMs: 0.195, Failures: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta"},
					{LatencyMs: 0.185, Failures: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 5.018, Failures: 0, Text: "END;"},
				}},
				{Desc: "<builtin: simple update>", Weight: 1, Processed: 193, TPS: 169.507602, LatencyAvgMs: 5.743, LatencyStddevMs: 8.579, Statements: []Statement{
					{LatencyMs: 0.002, Failures: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set bid random(1, 1 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set tid random(1, 10 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Text: "\\set delta random(-5000, 5000)"},
					{LatencyMs: 0.100, Failures: 0, Text: "BEGIN;"},
					{LatencyMs: 0.290, Failures: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"},
					{LatencyMs: 0.249, Failures: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 0.117, Failures: 0, Text: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);"},
					{LatencyMs: 4.982, Failures: 0, Text: "END;"},
				}},
			},
			Scale:                 2,
			QueryMode:             "simple",
			Clients:               2,
			Threads:               1,
			MaxTries:              1,
			TransactionsPerClient: 200,
			Processed:             400,
			LatencyAvgMs:          5.693,
			ConnectionMs:          6.250,
			TPS:                   351.311093,
			PerCommand:            true,
		})
	}},
	{"simple-update", func(w io.Writer) { // $ pgbench -N -t 100 -M extended bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: simple update>", Weight: 1},
			},
			Scale:                 2,
			QueryMode:             "extended",
			Clients:               1,
			Threads:               1,
			MaxTries:              1,
			TransactionsPerClient: 100,
			Processed:             100,
			LatencyAvgMs:          5.230,
			ConnectionMs:          3.008,
			TPS:                   191.209342,
		})
	}},
	{"unlimited", func(w io.Writer) { // $ pgbench -c 2 -T 3 --max-tries=0 -L 5 -P 1 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 1.0, TPS: 318.0, LatencyMs: 5.978, StddevMs: 10.342, Failed: 0, Retrying: true, Retried: 0, Retries: 0})
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 282.2, LatencyMs: 7.199, StddevMs: 12.958, Failed: 0, Retrying: true, Retried: 0, Retries: 0})
		WriteProgress(w, Progress{Elapsed: 3.0, TPS: 415.7, LatencyMs: 4.890, StddevMs: 11.105, Failed: 0, Retrying: true, Retried: 0, Retries: 0})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1},
			},
			Scale:           2,
			QueryMode:       "simple",
			Clients:         2,
			Threads:         1,
			Duration:        3,
			Processed:       1017,
			Retried:         0,
			Retries:         0,
			LatencyLimitMs:  5.0,
			LatencyLate:     343,
			LatencyMeasured: true,
			LatencyAvgMs:    5.874,
			LatencyStddevMs: 11.459,
			ConnectionMs:    15.092,
			TPS:             340.293797,
		})
	}},
	{"partitioned", func(w io.Writer) { // $ pgbench -S -t 100 -c 2 -n bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: select only>", Weight: 1},
			},
			Scale:                 1,
			PartitionMethod:       "range",
			Partitions:            2,
			QueryMode:             "simple",
			Clients:               2,
			Threads:               1,
			MaxTries:              1,
			TransactionsPerClient: 100,
			Processed:             200,
			LatencyAvgMs:          0.264,
			ConnectionMs:          32.194,
			TPS:                   7572.315614,
		})
	}},
	{"connect", func(w io.Writer) { // $ pgbench -C -S -t 50 -c 2 -P 1 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: select only>", Weight: 1},
			},
			Scale:                 2,
			QueryMode:             "simple",
			Clients:               2,
			Threads:               1,
			MaxTries:              1,
			TransactionsPerClient: 50,
			Processed:             100,
			LatencyMeasured:       true,
			LatencyAvgMs:          4.816,
			LatencyStddevMs:       4.064,
			Connect:               true,
			ConnectionMs:          4.283,
			TPS:                   210.909505,
		})
	}},
	{"multi-retries", func(w io.Writer) { // $ pgbench -b tpcb-like@1 -b simple-update@1 --max-tries=2 --failures-detailed -c 4 -T 3 -r -R 400 -L 20 -P 1 bench
		WriteVersion(w, "15.20 (Debian 15.20-0+deb12u1)", "")
		fmt.Fprintln(w, VacuumStart+VacuumEnd)
		WriteProgress(w, Progress{Elapsed: 1.0, TPS: 305.0, LatencyMs: 4.180, StddevMs: 9.449, Failed: 4, Throttled: true, LagMs: 1.787, LatencyLimit: true, Skipped: 6, Retrying: true, Retried: 19, Retries: 19})
		WriteProgress(w, Progress{Elapsed: 2.0, TPS: 368.0, LatencyMs: 3.381, StddevMs: 6.411, Failed: 9, Throttled: true, LagMs: 1.096, LatencyLimit: true, Skipped: 8, Retrying: true, Retried: 32, Retries: 32})
		WriteProgress(w, Progress{Elapsed: 3.0, TPS: 271.0, LatencyMs: 7.777, StddevMs: 42.242, Failed: 1, Throttled: true, LagMs: 3.395, LatencyLimit: true, Skipped: 122, Retrying: true, Retried: 16, Retries: 16})
		WriteSummary(w, Summary{
			Scripts: []Script{
				{Desc: "<builtin: TPC-B (sort of)>", Weight: 1, Processed: 481, TPS: 167.142728, Retried: 67, Retries: 67, Skipped: 128, LatencyAvgMs: 5.196, LatencyStddevMs: 24.085, Failures: Failures{Serialization: 14, Deadlock: 0}, Statements: []Statement{
					{LatencyMs: 0.002, Failures: 0, Retries: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Retries: 0, Text: "\\set bid random(1, 1 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set tid random(1, 10 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set delta random(-5000, 5000)"},
					{LatencyMs: 0.732, Failures: 0, Retries: 0, Text: "BEGIN;"},
					{LatencyMs: 0.249, Failures: 0, Retries: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"},
					{LatencyMs: 0.288, Failures: 0, Retries: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 0.132, Failures: 1, Retries: 3, Text: "UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;"},
					{LatencyMs: 0.180, Failures: 13, Retries: 64, Text: "UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;"},
					{LatencyMs: 0.109, Failures: 0, Retries: 0, Text: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);"},
					{LatencyMs: 1.177, Failures: 0, Retries: 0, Text: "END;"},
				}},
				{Desc: "<builtin: simple update>", Weight: 1, Processed: 466, TPS: 161.930377, Retried: 0, Retries: 0, Skipped: 8, LatencyAvgMs: 4.599, LatencyStddevMs: 23.166, Statements: []Statement{
					{LatencyMs: 0.002, Failures: 0, Retries: 0, Text: "\\set aid random(1, 100000 * :scale)"},
					{LatencyMs: 0.001, Failures: 0, Retries: 0, Text: "\\set bid random(1, 1 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set tid random(1, 10 * :scale)"},
					{LatencyMs: 0.000, Failures: 0, Retries: 0, Text: "\\set delta random(-5000, 5000)"},
					{LatencyMs: 0.458, Failures: 0, Retries: 0, Text: "BEGIN;"},
					{LatencyMs: 0.204, Failures: 0, Retries: 0, Text: "UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;"},
					{LatencyMs: 0.196, Failures: 0, Retries: 0, Text: "SELECT abalance FROM pgbench_accounts WHERE aid = :aid;"},
					{LatencyMs: 0.119, Failures: 0, Retries: 0, Text: "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);"},
					{LatencyMs: 1.918, Failures: 0, Retries: 0, Text: "END;"},
				}},
			},
			Scale:            2,
			QueryMode:        "simple",
			Clients:          4,
			Threads:          1,
			MaxTries:         2,
			Duration:         3,
			Processed:        947,
			FailuresDetailed: true,
			Retried:          67,
			Retries:          67,
			Throttled:        true,
			Skipped:          136,
			LatencyLimitMs:   20.0,
			LatencyLate:      24,
			LatencyMeasured:  true,
			LatencyAvgMs:     4.902,
			LatencyStddevMs:  23.639,
			LagAvgMs:         1.973,
			LagMaxMs:         246.999,
			ConnectionMs:     129.316,
			TPS:              329.073105,
			PerCommand:       true,
			Failures:         Failures{Serialization: 14, Deadlock: 0},
		})
	}},
}
