package cost

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// Seed 003 (Ron Xing, "TiDB on an ARM-based Kubernetes Cluster: x86
// Performance at 15% Lower Cost", 2021-03-10) reproduced from its raw inputs:
// hourly instance prices, instance counts, volume and EKS costs per month,
// and the tpmC / TPS figures by thread count.
//
// Printed figures that no sensible rounding of the raw inputs reproduces
// (asserted below as what the model computes instead):
//
//  1. EC2 APAC, TiKV r6g.2xlarge: printed 1,065.21; 0.4864 × 3 × 730 =
//     1,065.216 → 1,065.22. The post's APAC EC2 total 1,866.46 is the sum
//     with 1,065.22 (686.78 + 1,065.22 + 57.23 + 57.23), so 1,065.21 is a
//     slip in that one cell.
//  2. TPC-C Medium1, ARM, US price-performance: printed 2.35; 127,048.2 ÷
//     53,925.2 = 2.3560 → 2.36 (÷ the truncated 53,925 gives 2.3560 too).
//  3. TPC-C Medium1, US "(ARM-x86)/x86": printed -18.11%; the model gives
//     -17.77% (-18.12% from the printed, rounded 2.35 and 2.87).
//  4. TPC-C Medium2, US "(ARM-x86)/x86": printed -17.47%, the APAC figure;
//     the model gives -17.28% (-17.48% from the printed 2.03 and 2.46).
//  5. Sysbench ARM mean TPS: printed 2,654.21; (2,397.24 + 2,745.64 +
//     2,819.85) ÷ 3 = 2,654.243 → 2,654.24 (its price-performance figures
//     47.87 and 55.77 come out the same either way).
//  6. Sysbench US "(ARM-x86)/x86": printed -16.00%; the model gives -16.01%
//     (47.8661 vs 56.9923); -16.00% is what the rounded 47.87 and 56.99 give.
//
// Printed by truncation rather than rounding, reproduced that way:
//   - the TPC-C mean tpmC column (12,225.83 is printed 12,225; all six).
//
// Everything else reproduces to the printed precision with the post's own
// method: each monthly line = unit price × count × 730 h rounded to the cent
// (round_monthly_to: 0.01), the five-year "total system cost" = monthly total
// × 60 (unrounded lines would give 127,048.08 and 148,017.84, not the printed
// 127,048.2 and 148,017.60).

// seed003Instance is one row of the post's EC2 cost tables.
type seed003Instance struct {
	role, ec2 string
	count     int
	usHourly  float64 // "Unit price (USD/hr)", US region
	usMonthly string  // "Monthly cost", as printed
	apHourly  float64
	apMonthly string
}

var seed003EC2 = map[string][]seed003Instance{
	"arm": {
		{"TiDB", "c6g.2xlarge", 3, 0.272, "595.68", 0.3136, "686.78"},
		{"TiKV", "r6g.2xlarge", 3, 0.4032, "883.01", 0.4864, "1,065.21"},
		{"PD", "c6g.large", 1, 0.068, "49.64", 0.0784, "57.23"},
		{"Control plane", "c6g.large", 1, 0.068, "49.64", 0.0784, "57.23"},
	},
	"x86": {
		{"TiDB", "c5.2xlarge", 3, 0.34, "744.60", 0.392, "858.48"},
		{"TiKV", "r5.2xlarge", 3, 0.504, "1,103.76", 0.608, "1,331.52"},
		{"PD", "c5.large", 1, 0.085, "62.05", 0.098, "71.54"},
		{"Control plane", "c5.large", 1, 0.085, "62.05", 0.098, "71.54"},
	},
}

// The storage table: monthly cost of the TiKV volumes (3 × gp2 1,000 GB) and
// the PD volume (gp2 50 GB), daily snapshot included; and the EKS cost.
var (
	seed003Storage = map[string][2]float64{"us": {456.75, 9.75}, "apac": {516.75, 10.75}}
	seed003EKS     = 73.00
)

// The post's totals, as printed.
var seed003Totals = map[string]struct{ ec2, storage, eks, total, fiveYear string }{
	"arm-us":   {"1,577.97", "466.50", "73.00", "2,117.47", "127,048.2"},
	"x86-us":   {"1,972.46", "466.50", "73.00", "2,511.96", "150,717.6"},
	"arm-apac": {"1,866.46", "527.50", "73.00", "2,466.96", "148,017.60"},
	"x86-apac": {"2,333.08", "527.50", "73.00", "2,933.58", "176,014.80"},
}

// seed003Sheet writes the raw inputs as a price sheet.
func seed003Sheet(t *testing.T) *Sheet {
	t.Helper()
	var b strings.Builder
	b.WriteString("source: seed 003\nperiod: 5y\nhours_per_month: 730\nround_monthly_to: 0.01\ninstances:\n")
	for arch, rows := range seed003EC2 {
		a := map[string]string{"arm": "arm64", "x86": "x86_64"}[arch]
		for _, r := range rows {
			if r.role == "Control plane" {
				continue // the same instance type as PD
			}
			fmt.Fprintf(&b, "  - {name: us/%s, arch: %s, vcpu: 8, price_per_hour: %v}\n", r.ec2, a, r.usHourly)
			fmt.Fprintf(&b, "  - {name: apac/%s, arch: %s, vcpu: 8, price_per_hour: %v}\n", r.ec2, a, r.apHourly)
		}
	}
	b.WriteString("volumes:\n")
	for region, st := range seed003Storage {
		fmt.Fprintf(&b, "  - {name: %s/tikv-gp2, size_gib: 1000, price_per_month: %v}\n", region, st[0]/3)
		fmt.Fprintf(&b, "  - {name: %s/pd-gp2, size_gib: 50, price_per_month: %v}\n", region, st[1])
	}
	fmt.Fprintf(&b, "fees:\n  - {name: eks, price_per_month: %v}\nsystems:\n", seed003EKS)
	for _, arch := range []string{"arm", "x86"} {
		for _, region := range []string{"us", "apac"} {
			fmt.Fprintf(&b, "  - name: %s-%s\n    items:\n", arch, region)
			for _, r := range seed003EC2[arch] {
				fmt.Fprintf(&b, "      - {instance: %s/%s, count: %d, role: %s}\n", region, r.ec2, r.count, r.role)
			}
			fmt.Fprintf(&b, "      - {volume: %s/tikv-gp2, count: 3, role: TiKV}\n", region)
			fmt.Fprintf(&b, "      - {volume: %s/pd-gp2, role: PD}\n", region)
			b.WriteString("      - {fee: eks, role: EKS}\n")
		}
	}
	s, err := ParseSheet("seed003.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return s
}

// atPrinted formats x as the seed printed want: the same decimals, and
// thousands separators when want has them.
func atPrinted(x float64, want string) string {
	w := strings.TrimSuffix(want, "%")
	dec := 0
	if i := strings.IndexByte(w, '.'); i >= 0 {
		dec = len(w) - i - 1
	}
	s := strconv.FormatFloat(x, 'f', dec, 64)
	if strings.Contains(w, ",") {
		s = group(s)
	}
	if strings.HasSuffix(want, "%") {
		s += "%"
	}
	return s
}

func TestSeed003Costs(t *testing.T) {
	sheets := map[string]*Sheet{"raw inputs": seed003Sheet(t)}
	// The example sheet in prices/ must give the same figures.
	if s, err := LoadSheet("../../../prices/tidb-eks-graviton2-vs-x86-2021.yaml"); err != nil {
		t.Fatal(err)
	} else {
		sheets["prices/ example"] = s
	}
	for name, s := range sheets {
		for sys, want := range seed003Totals {
			t.Run(name+"/"+sys, func(t *testing.T) {
				c, err := s.Cost(sys)
				if err != nil {
					t.Fatal(err)
				}
				check := func(what string, got float64, want string) {
					t.Helper()
					if g := atPrinted(got, want); g != want {
						t.Errorf("%s: got %s, the post prints %s", what, g, want)
					}
				}
				check("EC2 cost", c.ComputeMonthly, want.ec2)
				check("storage cost", c.StorageMonthly, want.storage)
				check("EKS cost", c.FeesMonthly, want.eks)
				check("total cost per month", c.Monthly, want.total)
				check("five-year cost", c.PeriodCost, want.fiveYear)
				check("yearly cost", c.Yearly, money(c.Monthly*12))

				arch, region, _ := strings.Cut(sys, "-")
				for i, row := range seed003EC2[arch] {
					ln := c.Lines[i]
					if ln.Role != row.role || ln.Count != row.count || !strings.HasSuffix(ln.Name, row.ec2) {
						t.Fatalf("line %d is %+v, want %s %d × %s", i, ln, row.role, row.count, row.ec2)
					}
					printed, hourly := row.usMonthly, row.usHourly
					if region == "apac" {
						printed, hourly = row.apMonthly, row.apHourly
					}
					if math.Abs(ln.Hourly-hourly*float64(row.count)) > 1e-12 {
						t.Errorf("%s hourly: got %v, want %v × %d", row.role, ln.Hourly, hourly, row.count)
					}
					if sys == "arm-apac" && row.role == "TiKV" {
						// Not reproducible (1 in the list above): 1,065.216 rounds to 1,065.22.
						if got := atPrinted(ln.Monthly, printed); got != "1,065.22" {
							t.Errorf("TiKV monthly: got %s, want 1,065.22 (the post's 1,065.21 is a slip)", got)
						}
						continue
					}
					check(row.role+" monthly", ln.Monthly, printed)
				}
			})
		}
	}
}

// The TPC-C results by thread count (150, 300, 500, 800, 1,000 threads).
var seed003TPCC = []struct {
	workload string
	x86, arm []float64
	// The price-performance table, as printed: mean tpmC over 300, 500 and
	// 800 threads; price-performance (US, APAC); "(ARM-x86)/x86" (US, APAC).
	x86Mean, armMean string
	x86PP, armPP     [2]string
	diff             [2]string
	threadDiffs      []string // the results tables' "(ARM-x86)/x86" row
}{
	{"Small", []float64{11211.4, 12624.8, 12111.7, 11941.0, 11919.4}, []float64{11186.3, 11977.6, 12570.0, 12465.1, 11680.0},
		"12,225", "12,337", [2]string{"12.33", "14.40"}, [2]string{"10.30", "12.00"}, [2]string{"-16.5%", "-16.67%"},
		[]string{"-0.22%", "-5.13%", "3.78%", "4.39%", "-2.01%"}},
	{"Medium1", []float64{34407.8, 49379.5, 53965.8, 54459.9, 52319.8}, []float64{32089.5, 52382.1, 55479.4, 53914.1, 56058.6},
		"52,601", "53,925", [2]string{"2.87", "3.35"}, [2]string{"2.35", "2.74"}, [2]string{"-18.11%", "-17.97%"},
		[]string{"-6.74%", "6.08%", "2.80%", "-1.00%", "7.14%"}},
	{"Medium2", []float64{37893.7, 57138.3, 61601.6, 65132.7, 63240.5}, []float64{44141.2, 57666.4, 62466.7, 67230.7, 68067.7},
		"61,290", "62,454", [2]string{"2.46", "2.87"}, [2]string{"2.03", "2.37"}, [2]string{"-17.47%", "-17.47%"},
		[]string{"16.49%", "0.92%", "1.40%", "3.22%", "7.63%"}},
}

var seed003Threads = []int{150, 300, 500, 800, 1000}

func byThreads(threads []int, values []float64) map[int]float64 {
	m := map[int]float64{}
	for i, th := range threads {
		m[th] = values[i]
	}
	return m
}

// notReproduced maps "workload/region/what" to the value the model gives
// where the post's printed figure cannot be reproduced (see the list above).
var notReproduced = map[string]string{
	"Medium1/us/arm price-performance": "2.36",
	"Medium1/us/diff":                  "-17.77%",
	"Medium2/us/diff":                  "-17.28%",
	"sysbench/us/diff":                 "-16.01%",
	"sysbench/arm mean":                "2,654.24",
}

// expectPrinted checks got against the post's printed figure, or against the
// model's own value where the post's cannot be reproduced.
func expectPrinted(t *testing.T, key string, got float64, printed string) {
	t.Helper()
	want := printed
	if alt, ok := notReproduced[key]; ok {
		want = alt
	}
	if g := atPrinted(got, want); g != want {
		t.Errorf("%s: got %s, want %s (the post prints %s)", key, g, want, printed)
	}
}

func TestSeed003TPCCPricePerformance(t *testing.T) {
	s := seed003Sheet(t)
	regions := []string{"us", "apac"}
	for _, w := range seed003TPCC {
		for ri, region := range regions {
			ev, err := s.Evaluate([]Input{
				{System: "x86-" + region, Throughput: Figure{ByThreads: byThreads(seed003Threads, w.x86), Threads: []int{300, 500, 800}}},
				{System: "arm-" + region, Throughput: Figure{ByThreads: byThreads(seed003Threads, w.arm), Threads: []int{300, 500, 800}}},
			}, Options{Workload: "TPC-C " + w.workload, Metric: "tpmC", PricePerf: BasisPeriod})
			if err != nil {
				t.Fatal(err)
			}
			x86, arm := ev.Rows[0], ev.Rows[1]
			// The post prints the mean tpmC truncated to a whole number.
			if got := group(strconv.Itoa(int(x86.Throughput))); got != w.x86Mean {
				t.Errorf("%s x86 mean tpmC: got %s (%.2f), the post prints %s", w.workload, got, x86.Throughput, w.x86Mean)
			}
			if got := group(strconv.Itoa(int(arm.Throughput))); got != w.armMean {
				t.Errorf("%s ARM mean tpmC: got %s (%.2f), the post prints %s", w.workload, got, arm.Throughput, w.armMean)
			}
			key := w.workload + "/" + region + "/"
			expectPrinted(t, key+"x86 price-performance", x86.PricePerformance, w.x86PP[ri])
			expectPrinted(t, key+"arm price-performance", arm.PricePerformance, w.armPP[ri])
			expectPrinted(t, key+"diff", arm.Diff.PricePerformance, w.diff[ri])
			if ev.Baseline != "x86-"+region || x86.Diff != nil {
				t.Errorf("baseline is %q, want x86-%s", ev.Baseline, region)
			}
			if !(arm.PerDollar > x86.PerDollar) {
				t.Errorf("%s: ARM's tpmC per dollar %v is not above x86's %v", key, arm.PerDollar, x86.PerDollar)
			}
		}
	}
}

// The results tables' per-thread "(ARM-x86)/x86" rows. Two printed figures
// are not reproducible by rounding: Medium1 at 1,000 threads prints 7.14%
// ((56,058.6 − 52,319.8) ÷ 52,319.8 = 7.146% → 7.15%) and sysbench at 300
// threads prints -3.68% (-3.687% → -3.69%); both are truncations, but the
// other rows are rounded (Small at 300 threads: -5.126% is printed -5.13%).
func TestSeed003ThroughputDiffs(t *testing.T) {
	odd := map[string]string{"Medium1/1000": "7.15%", "sysbench/300": "-3.69%"}
	check := func(key string, x86, arm float64, printed string) {
		t.Helper()
		want := printed
		if alt, ok := odd[key]; ok {
			want = alt
		}
		if got := atPrinted(PercentDiff(x86, arm), want); got != want {
			t.Errorf("%s: got %s, want %s (printed %s)", key, got, want, printed)
		}
	}
	for _, w := range seed003TPCC {
		for i, th := range seed003Threads {
			check(fmt.Sprintf("%s/%d", w.workload, th), w.x86[i], w.arm[i], w.threadDiffs[i])
		}
	}
	for i, th := range seed003SysbenchThreads {
		check(fmt.Sprintf("sysbench/%d", th), seed003SysbenchX86[i], seed003SysbenchARM[i], []string{"-3.68%", "1.76%", "2.67%"}[i])
	}
}

// Sysbench oltp_read_write TPS at 300, 600 and 900 threads.
var (
	seed003SysbenchThreads = []int{300, 600, 900}
	seed003SysbenchX86     = []float64{2489.02, 2698.11, 2746.45}
	seed003SysbenchARM     = []float64{2397.24, 2745.64, 2819.85}
)

func TestSeed003SysbenchPricePerformance(t *testing.T) {
	s := seed003Sheet(t)
	printed := map[string]struct{ x86PP, armPP, diff string }{
		"us":   {"56.99", "47.87", "-16.00%"},
		"apac": {"66.56", "55.77", "-16.21%"},
	}
	for _, region := range []string{"us", "apac"} {
		ev, err := s.Evaluate([]Input{
			{System: "x86-" + region, Throughput: Figure{ByThreads: byThreads(seed003SysbenchThreads, seed003SysbenchX86)}},
			{System: "arm-" + region, Throughput: Figure{ByThreads: byThreads(seed003SysbenchThreads, seed003SysbenchARM)}},
		}, Options{Workload: "sysbench oltp_read_write", Metric: "TPS"})
		if err != nil {
			t.Fatal(err)
		}
		x86, arm := ev.Rows[0], ev.Rows[1]
		expectPrinted(t, "sysbench/x86 mean", x86.Throughput, "2,644.53")
		expectPrinted(t, "sysbench/arm mean", arm.Throughput, "2,654.21")
		p := printed[region]
		expectPrinted(t, "sysbench/"+region+"/x86 price-performance", x86.PricePerformance, p.x86PP)
		expectPrinted(t, "sysbench/"+region+"/arm price-performance", arm.PricePerformance, p.armPP)
		expectPrinted(t, "sysbench/"+region+"/diff", arm.Diff.PricePerformance, p.diff)
		if len(x86.Threads) != 3 {
			t.Errorf("threads averaged: %v, want all three", x86.Threads)
		}
	}
}
