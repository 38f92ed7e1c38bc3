package result

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestJudgeOutages(t *testing.T) {
	start := mergeBase
	end := start.Add(100 * time.Second)
	at := func(s float64) time.Time { return start.Add(time.Duration(s * float64(time.Second))) }
	tests := []struct {
		name        string
		outages     []Outage
		failure     string // part of the failure; "" = none
		warning     string // part of the warning; "" = none
		downSeconds float64
	}{
		{name: "none"},
		{name: "short, survived", outages: []Outage{{Start: at(10), Seconds: 2, Threads: 4}},
			warning: "every thread reconnected and the run counts as complete", downSeconds: 2},
		{name: "exactly 5 %, survived", outages: []Outage{{Start: at(10), Seconds: 3, Threads: 4}, {Start: at(50), Seconds: 2, Threads: 1}},
			warning: "2 outage(s), the first 10.0s into the measured phase; up to 4 of 8 threads lost their connection in one", downSeconds: 5},
		{name: "over 5 % in two outages", outages: []Outage{{Start: at(10), Seconds: 3, Threads: 4}, {Start: at(50), Seconds: 2.5, Threads: 1}},
			failure: "unreachable for 5.5s of the 100.0s measured phase (5.5 %, more than 5 %)", warning: "5.5s of the 100.0s", downSeconds: 5.5},
		{name: "a thread without a connection at the end", outages: []Outage{{Start: at(99.5), Seconds: 0.5, Threads: 4, Unrecovered: 1}},
			failure: "1 of 8 threads had no connection when the measured phase ended", warning: "1 thread(s) still had none", downSeconds: 0.5},
		{name: "in the warm-up only", outages: []Outage{{Start: at(-20), Seconds: 10, Threads: 8}},
			warning: "the first 20.0s before the measured phase, in the warm-up; 8 of 8 threads lost their connection", downSeconds: 0},
		{name: "a short stall", outages: []Outage{{Start: at(10), Seconds: 3, Threads: 8, Stall: true, LimitSeconds: 1}},
			warning: "the server stopped answering: 1 stall (some thread waited for an answer and none came for longer than the stall limit, 1.0s): " +
				"10.0s into the measured phase, for 3.0s; it answered nothing for 3.0s of the 100.0s measured phase (3.0 %) — within 5 % of the measured phase, the run counts as complete",
			downSeconds: 3},
		{name: "stalls named, a few", outages: []Outage{
			{Start: at(10), Seconds: 1.2, Threads: 8, Stall: true, LimitSeconds: 1}, {Start: at(20), Seconds: 1.1, Threads: 8, Stall: true, LimitSeconds: 1.5},
			{Start: at(30), Seconds: 1.3, Threads: 8, Stall: true, LimitSeconds: 1}, {Start: at(40), Seconds: 1.05, Threads: 8, Stall: true, LimitSeconds: 1},
			{Start: at(50), Seconds: 1.1, Threads: 8, Stall: true, LimitSeconds: 1}},
			failure: "the server answered nothing for 5.8s",
			warning: "5 stalls (some thread waited for an answer and none came for longer than the stall limit, 1.0s to 1.5s): 10.0s into the measured phase, for 1.2s; " +
				"20.0s into the measured phase, for 1.1s; 30.0s into the measured phase, for 1.3s; and 2 more; it answered nothing for 5.8s",
			downSeconds: 5.75},
		{name: "an old result's stall, no limit recorded", outages: []Outage{{Start: at(10), Seconds: 3, Threads: 8, Stall: true}},
			warning: "none came for longer than the stall limit): 10.0s", downSeconds: 3},
		{name: "a stall to the end, over 5 %", outages: []Outage{{Start: at(90), Seconds: 10, Threads: 8, Unrecovered: 8, Stall: true}},
			failure: "8 of 8 threads were still waiting for an answer when the measured phase ended", warning: "8 thread(s) still waited", downSeconds: 10},
		{name: "a short stall to the end", outages: []Outage{{Start: at(98), Seconds: 2, Threads: 8, Unrecovered: 3, Stall: true, LimitSeconds: 1}},
			warning: "98.0s into the measured phase, for 2.0s; it answered nothing for 2.0s of the 100.0s measured phase (2.0 %), and 3 thread(s) still waited for an answer when it ended — within 5 %", downSeconds: 2},
		{name: "a long stall the server came back from", outages: []Outage{{Start: at(10), Seconds: 6, Threads: 8, Stall: true}},
			failure: "the server answered nothing for 6.0s", downSeconds: 6},
		{name: "a stall and a lost connection", outages: []Outage{{Start: at(10), Seconds: 1, Threads: 2}, {Start: at(20), Seconds: 2, Threads: 8, Stall: true, LimitSeconds: 1}},
			warning:     "1 outage(s), the first 10.0s into the measured phase; 2 of 8 threads lost their connection; 1 stall (some thread waited for an answer and none came for longer than the stall limit, 1.0s): 20.0s into the measured phase, for 2.0s",
			downSeconds: 3},
		{name: "a stall and a lost connection, over 5 %", outages: []Outage{{Start: at(10), Seconds: 3, Threads: 2}, {Start: at(20), Seconds: 3, Threads: 8, Stall: true, LimitSeconds: 1}},
			failure: "the server was unreachable or answered nothing for 6.0s", downSeconds: 6},
		{name: "a stall in the warm-up", outages: []Outage{{Start: at(-5), Seconds: 2, Threads: 8, Stall: true, LimitSeconds: 1}},
			warning: "1 stall (some thread waited for an answer and none came for longer than the stall limit, 1.0s): 5.0s before the measured phase, in the warm-up, for 2.0s", downSeconds: 0},
		{name: "from the warm-up into the phase", outages: []Outage{{Start: at(-20), Seconds: 30, Threads: 8}},
			failure: "unreachable for 10.0s", downSeconds: 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failure, warning := JudgeOutages(8, start, end, tc.outages)
			if tc.failure == "" && failure != "" || !strings.Contains(failure, tc.failure) {
				t.Errorf("failure %q, want %q", failure, tc.failure)
			}
			if tc.warning == "" && len(tc.outages) == 0 && warning != "" || !strings.Contains(warning, tc.warning) {
				t.Errorf("warning %q, want %q", warning, tc.warning)
			}
			if len(tc.outages) > 0 && warning == "" {
				t.Errorf("no warning for outages %+v", tc.outages)
			}
			if got := OutageSeconds(start, end, tc.outages); got < tc.downSeconds-1e-9 || got > tc.downSeconds+1e-9 {
				t.Errorf("OutageSeconds = %v, want %v", got, tc.downSeconds)
			}
		})
	}
}

// TestMarkStalls: an interval is marked when it overlaps a stall, however
// little, and only a stall (not an outage of connections) marks it; marks
// are set anew.
func TestMarkStalls(t *testing.T) {
	runStart := mergeBase
	at := func(s float64) time.Time { return runStart.Add(time.Duration(s * float64(time.Second))) }
	outages := []Outage{
		{Start: at(2.5), Seconds: 1.6, Stall: true}, // 2.5..4.1
		{Start: at(6), Seconds: 2, Threads: 1},      // lost connections: not a stall
		{Start: at(8.9), Seconds: 0.05, Stall: true},
	}
	var ivs []Interval
	for i := 1; i <= 10; i++ {
		ivs = append(ivs, Interval{At: float64(i), Seconds: 1, Stall: i == 7})
	}
	ivs = append(ivs, Interval{At: 10.5, Seconds: 0.5}) // a last, partial one
	MarkStalls(ivs, runStart, outages)
	var got []float64
	for _, iv := range ivs {
		if iv.Stall {
			got = append(got, iv.At)
		}
	}
	if want := []float64{3, 4, 5, 9}; !slices.Equal(got, want) {
		t.Errorf("marked intervals ending at %v, want %v", got, want)
	}
}

func TestMergeOutages(t *testing.T) {
	at := func(s float64) time.Time { return mergeBase.Add(time.Duration(s * float64(time.Second))) }
	got := MergeOutages(
		[]Outage{{Start: at(10), Seconds: 2, Threads: 2}, {Start: at(40), Seconds: 1, Threads: 1}},
		[]Outage{{Start: at(11), Seconds: 3, Threads: 4, Unrecovered: 1}},
	)
	want := []Outage{{Start: at(10), Seconds: 4, Threads: 6, Unrecovered: 1}, {Start: at(40), Seconds: 1, Threads: 1}}
	if len(got) != len(want) {
		t.Fatalf("MergeOutages = %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].Start.Equal(want[i].Start) || got[i].Seconds != want[i].Seconds || got[i].Threads != want[i].Threads || got[i].Unrecovered != want[i].Unrecovered {
			t.Errorf("outage %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if MergeOutages(nil, nil) != nil {
		t.Errorf("no outages merge into some")
	}
}

// TestMergeJudgesOutagesAnew: two clients whose outages, each under 5 % of
// its phase, add up to more than 5 % of the merged phase fail the merged
// result; the clients' own outage warnings give way to the merged one.
func TestMergeJudgesOutagesAnew(t *testing.T) {
	var parts []Part
	for i := range 2 {
		r := clientResult(t, clientSpec{id: i, of: 2, seed: uint64(i + 1), n: 1000, seconds: 10, perThread: []int64{1000}, busy: []float64{9}})
		r.Outages = []Outage{{Start: r.Start.Add(time.Duration(2+4*i) * time.Second), Seconds: 0.4, Threads: 1}}
		failure, warning := JudgeOutages(r.Threads, r.Start, r.End, r.Outages)
		if failure != "" {
			t.Fatalf("client %d alone fails: %s", i, failure)
		}
		r.AddWarning(warning)
		parts = append(parts, Part{File: "c" + string(rune('0'+i)) + ".json", Result: r})
	}
	m, err := Merge(parts, MergeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Outages) != 2 {
		t.Fatalf("merged outages %+v, want the two clients'", m.Outages)
	}
	if m.Status != StatusFailed || !strings.Contains(m.Error, "0.8s of the 10.0s measured phase") {
		t.Errorf("merged status %s, error %q: want failed for 8 %% of the merged phase", m.Status, m.Error)
	}
	if len(m.Warnings) != 1 || strings.Contains(m.Warnings[0], "client") || !strings.Contains(m.Warnings[0], "2 outage(s)") {
		t.Errorf("merged warnings %q, want one judged on the merged outages", m.Warnings)
	}
}

// TestOutagesRoundTrip: outages survive writing and reading; a result without
// them (older ones) reads with none.
func TestOutagesRoundTrip(t *testing.T) {
	r := clientResult(t, clientSpec{id: 0, of: 1, seed: 1, n: 100, seconds: 2, perThread: []int64{100}, busy: []float64{1}})
	r.Outages = []Outage{{Start: r.Start.Add(time.Second), Seconds: 0.25, Threads: 1, Unrecovered: 1}}
	var buf bytes.Buffer
	if err := Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"outages"`) || !strings.Contains(buf.String(), `"unrecovered": 1`) {
		t.Fatalf("encoded result lacks the outage:\n%.400s", buf.String())
	}
	got, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Outages) != 1 || got.Outages[0].Seconds != 0.25 || !got.Outages[0].Start.Equal(r.Outages[0].Start) {
		t.Errorf("read outages %+v, want %+v", got.Outages, r.Outages)
	}
	r.Outages = nil
	buf.Reset()
	if err := Encode(&buf, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "outages") {
		t.Errorf("a result without outages writes the field")
	}
}
