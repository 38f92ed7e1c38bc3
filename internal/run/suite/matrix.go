package suite

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/fairbench/fairbench/internal/record/suitedir"
	"github.com/fairbench/fairbench/internal/workload"
)

// group is the cells that share a server (profile and, in a server_cpus
// sweep, CPU set) and a data set: the data is warmed once for them.
type group struct {
	Profile string
	Dataset int
	Cells   []suitedir.Cell
}

// profiles returns the server profiles to run under ("" without a server):
// those this machine can run (validateProfiles).
func (p *Plan) profiles() []string {
	if p.Server == nil {
		return []string{""}
	}
	var out []string
	for _, prof := range p.Server.Profiles {
		if p.Server.profileRuns(prof) {
			out = append(out, prof)
		}
	}
	return out
}

// Expand returns the matrix in the order it runs: per profile, per data set,
// per server CPU set (a server_cpus sweep), per distribution, per round, per
// workload, per thread count — so that the server is restarted once per CPU
// set, the thread sweep of a test case runs together and rounds are spread
// over time.
func (p *Plan) Expand() []suitedir.Cell {
	var cells []suitedir.Cell
	for _, prof := range p.profiles() {
		for ds := range p.Data {
			for _, ss := range p.serverSets() {
				for _, rt := range p.Matrix.RandTypes {
					for round := 1; round <= p.Matrix.Rounds; round++ {
						for _, wl := range p.Matrix.Workloads {
							for _, th := range p.Matrix.threadCounts() {
								c := suitedir.Cell{Index: len(cells) + 1, Profile: prof, Dataset: ds, Data: p.datasetLabel(ds), Workload: wl, RandType: rt, Threads: th, Round: round,
									ServerCPUs: ss.count, SMT: string(ss.smt)}
								c.ID = p.cellID(c)
								cells = append(cells, c)
							}
						}
					}
				}
			}
		}
	}
	return cells
}

// groups splits cells by server and data set, in order.
func groups(cells []suitedir.Cell) []group {
	var out []group
	for _, c := range cells {
		if n := len(out); n == 0 || !sameGroup(out[n-1].Cells[0], c) {
			out = append(out, group{Profile: c.Profile, Dataset: c.Dataset})
		}
		out[len(out)-1].Cells = append(out[len(out)-1].Cells, c)
	}
	return out
}

// cellID names a cell; parts that do not vary in the plan are left out.
func (p *Plan) cellID(c suitedir.Cell) string {
	var parts []string
	if c.Profile != "" {
		parts = append(parts, c.Profile)
	}
	if len(p.Data) > 1 {
		parts = append(parts, p.datasetLabel(c.Dataset))
	}
	if l := setLabel(c.ServerCPUs, c.SMT); l != "" {
		parts = append(parts, l)
	}
	parts = append(parts, c.RandType, fmt.Sprintf("r%d", c.Round), c.Workload, fmt.Sprintf("t%d", c.Threads))
	return strings.Join(parts, "/")
}

// datasetLabel names a data set: "w10" for warehouses, "s10" for pgbench's
// scale factor, "4x100000" for tables;
// data sets that would share a label get their position appended ("w1#2").
func (p *Plan) datasetLabel(i int) string {
	label := dataLabel(p.Data[i], i)
	for j := range p.Data {
		if j != i && dataLabel(p.Data[j], j) == label {
			return fmt.Sprintf("%s#%d", label, i+1)
		}
	}
	return label
}

func dataLabel(d Data, i int) string {
	switch {
	case d.Warehouses > 0:
		return fmt.Sprintf("w%d", d.Warehouses)
	case d.Scale > 0:
		return fmt.Sprintf("s%d", d.Scale)
	case d.Tables > 0 || d.TableSize > 0:
		return fmt.Sprintf("%dx%d", max(d.Tables, 1), d.TableSize)
	}
	return fmt.Sprintf("d%d", i+1)
}

// Minimum sizes a scaled plan keeps, so a scaled run still measures something.
const (
	minScaledTableSize = 1000
	minScaledTime      = time.Second
)

// Scale shrinks (or grows) the plan's times and data by f, for trying a plan
// out: cell and warm-up times, sleeps, table sizes, warehouses and scale factors. Thread
// counts, tables and rounds stay, so the shape of the matrix is the same.
func (p *Plan) Scale(f float64) error {
	if !(f > 0) || f > 100 {
		return fmt.Errorf("--scale %v: give a factor above 0 and at most 100 (0.01 makes a plan about a hundred times shorter)", f)
	}
	if f == 1 {
		return nil
	}
	// A factor above 1 may take a value past the bounds the plan was
	// validated against (workload.Max*): refused, naming it.
	var past error
	dur := func(key string, s *Seconds, floor time.Duration) {
		if *s <= 0 {
			return
		}
		scaled := float64(*s) * f
		if scaled > float64(workload.MaxDuration) {
			past = cmp.Or(past, fmt.Errorf("--scale %v makes %s %s, longer than 30 days: give a smaller factor", f, key, time.Duration(scaled).Round(time.Hour)))
			return
		}
		*s = Seconds(max(time.Duration(scaled).Round(time.Second), floor))
	}
	dur("run.time", &p.Run.Time, minScaledTime)
	dur("run.warmup_time", &p.Run.WarmupTime, minScaledTime)
	dur("steps.changeover_sleep", &p.Steps.ChangeoverSleep, 0)
	if q := p.Steps.QueryWarmup; q != nil {
		dur("steps.query_warmup.time", &q.Time, minScaledTime)
	}
	count := func(key string, n *int, floor, most int) {
		if *n <= 0 {
			return
		}
		scaled := math.Round(float64(*n) * f)
		if scaled > float64(most) {
			past = cmp.Or(past, fmt.Errorf("--scale %v makes data.%s %.0f, more than %d: give a smaller factor", f, key, scaled, most))
			return
		}
		*n = max(floor, int(scaled))
	}
	for i := range p.Data {
		d := &p.Data[i]
		count("table_size", &d.TableSize, minScaledTableSize, workload.MaxTableSize)
		count("warehouses", &d.Warehouses, 1, workload.MaxWarehouses)
		count("scale", &d.Scale, 1, math.MaxInt32)
	}
	return past
}

// Estimate is how long a plan's cells take, without loading.
type Estimate struct {
	Cells    int
	Measured time.Duration // cells' warm-up and measured time
	Sleeps   time.Duration // change-over sleeps
	Warmups  time.Duration // query warm-ups
}

// Total is the whole estimate.
func (e Estimate) Total() time.Duration { return e.Measured + e.Sleeps + e.Warmups }

// estimate adds up what cells will take (loading and checksums not included:
// they depend on the server).
func (p *Plan) estimate(cells []suitedir.Cell) Estimate {
	e := Estimate{Cells: len(cells)}
	per := p.Run.Time.D() + p.Run.WarmupTime.D()
	var prev *suitedir.Cell
	for i := range cells {
		c := &cells[i]
		e.Measured += per
		if prev != nil && p.sleepsBefore(*prev, *c) {
			e.Sleeps += p.Steps.ChangeoverSleep.D()
		}
		if q := p.Steps.QueryWarmup; q != nil && (prev == nil || !sameGroup(*prev, *c)) {
			e.Warmups += q.Time.D()
		}
		prev = c
	}
	return e
}

// sleepsBefore reports whether the change-over sleep comes between prev and c.
func (p *Plan) sleepsBefore(prev, c suitedir.Cell) bool {
	if p.Steps.ChangeoverSleep <= 0 || !sameGroup(prev, c) {
		return false
	}
	if p.Steps.Changeover == ChangeoverCell {
		return true
	}
	return prev.Workload != c.Workload || prev.RandType != c.RandType || prev.Round != c.Round
}
