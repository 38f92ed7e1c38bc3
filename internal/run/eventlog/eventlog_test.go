package eventlog

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// t0 is a measured phase's start, half a second into a Unix second, as a
// real run's is anywhere in one.
var t0 = time.Unix(1795875278, 500_000_000)

func at(d time.Duration) time.Time { return t0.Add(d) }

func readLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func create(t *testing.T, o Options, clients int) *Log {
	t.Helper()
	l, err := Create(o, clients)
	if err != nil {
		t.Fatal(err)
	}
	l.Begin(t0)
	return l
}

// TestLinesAsPgbenchWritesThem: one line per event in pgbench -l's layout,
// the clients split among the files as pgbench splits them among threads,
// failures named as --failures-detailed names them.
func TestLinesAsPgbenchWritesThem(t *testing.T) {
	end := at(1500 * time.Millisecond) // 1795875280.000000
	cases := []struct {
		name     string
		opts     Options
		log      func(l *Log)
		want     []string // file 0
		wantNext []string // file 1
	}{
		{"plain, three clients in two files", Options{Files: 2}, func(l *Log) {
			l.Client(0).Done(0, end, 1234567*time.Nanosecond, 0, 0)
			l.Client(1).Done(1, end.Add(7*time.Microsecond), 999*time.Microsecond, 0, 0)
			l.Client(0).Done(0, end.Add(time.Second), 500*time.Nanosecond, 0, 0)
			l.Client(2).Done(0, end, time.Millisecond, 0, 0)
		}, []string{"0 1 1235 0 1795875280 0", "0 2 0 0 1795875281 0", "1 1 999 1 1795875280 7"}, []string{"2 1 1000 0 1795875280 0"}},
		{"lag and retries columns; failures as failed", Options{Lag: true, Retries: true}, func(l *Log) {
			c := l.Client(0)
			c.Done(0, end, 2*time.Millisecond, 40*time.Microsecond, 2)
			c.Failed(0, "40001", end, 3*time.Microsecond, 1)
			c.Skipped(0, end, 25*time.Millisecond)
		}, []string{"0 1 2000 0 1795875280 0 40 2", "0 2 failed 0 1795875280 0 3 1", "0 3 skipped 0 1795875280 0 25000 0"}, nil},
		{"failures detailed", Options{FailuresDetailed: true}, func(l *Log) {
			c := l.Client(0)
			c.Failed(2, "40001", end, 0, 0)
			c.Failed(2, "40P01", end, 0, 0)
			c.Failed(2, "1213", end, 0, 0)
			c.Failed(2, "23505", end, 0, 0)
		}, []string{"0 1 serialization 2 1795875280 0", "0 2 deadlock 2 1795875280 0", "0 3 deadlock 2 1795875280 0", "0 4 failed 2 1795875280 0"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Path = filepath.Join(t.TempDir(), "pgbench_log.42")
			l := create(t, tc.opts, 3)
			tc.log(l)
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			got := readLines(t, tc.opts.Path)
			// A file holds each client's lines in the order it logged them;
			// the clients' blocks may come in any order.
			sortByClient(got)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("file 0:\n got %q\nwant %q", got, tc.want)
			}
			if tc.opts.Files == 2 {
				if got := readLines(t, tc.opts.Path+".1"); strings.Join(got, "\n") != strings.Join(tc.wantNext, "\n") {
					t.Errorf("file 1:\n got %q\nwant %q", got, tc.wantNext)
				}
			}
		})
	}
}

// sortByClient orders lines by their client id, keeping each client's order.
func sortByClient(lines []string) {
	id := func(s string) int { n, _ := strconv.Atoi(strings.Fields(s)[0]); return n }
	for i := 1; i < len(lines); i++ {
		for j := i; j > 0 && id(lines[j-1]) > id(lines[j]); j-- {
			lines[j-1], lines[j] = lines[j], lines[j-1]
		}
	}
}

// TestAggregatedIntervals: one line per interval per file, the clients'
// events merged, every interval from the first to the last (empty ones as
// zeros), failures counted only when detailed, as pgbench 15 writes them.
func TestAggregatedIntervals(t *testing.T) {
	for _, detailed := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "agg")
		l := create(t, Options{Path: path, Aggregate: time.Second, Lag: true, Retries: true, FailuresDetailed: detailed}, 2)
		a, b := l.Client(0), l.Client(1)
		a.Done(0, at(100*time.Millisecond), 100*time.Microsecond, 10*time.Microsecond, 0)
		b.Done(0, at(900*time.Millisecond), 300*time.Microsecond, 30*time.Microsecond, 2)
		b.Failed(0, "40001", at(950*time.Millisecond), 0, 1)
		a.Skipped(0, at(2100*time.Millisecond), time.Second)
		a.Done(0, at(2500*time.Millisecond), 50*time.Microsecond, 5*time.Microsecond, 0)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		ser := "0"
		if detailed {
			ser = "1"
		}
		want := []string{
			// start count sum sum2 min max | lag sum sum2 min max | skipped retried retries serialization deadlock
			"1795875278 2 400 100000 100 300 40 1000 10 30 0 2 3 " + ser + " 0",
			"1795875279 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
			"1795875280 1 50 2500 50 50 5 25 5 5 1 0 0 0 0",
		}
		if got := readLines(t, path); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("detailed %v:\n got %q\nwant %q", detailed, got, want)
		}
	}
}

// TestSampling logs about the fraction asked for, and every event's number
// counts the ones not logged too.
func TestSampling(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	l := create(t, Options{Path: path, Sample: 0.25}, 1)
	const n = 40000
	for i := 0; i < n; i++ {
		l.Client(0).Done(0, at(time.Millisecond), time.Millisecond, 0, 0)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	// 10000 expected, standard deviation ~87: 8 of them either side.
	if len(lines) < 9300 || len(lines) > 10700 {
		t.Errorf("%d of %d events logged at a 0.25 sample", len(lines), n)
	}
	last, _ := strconv.Atoi(strings.Fields(lines[len(lines)-1])[1])
	if last <= len(lines) || last > n {
		t.Errorf("last event number %d with %d lines of %d events", last, len(lines), n)
	}
}

// TestManyLinesCrossTheBuffer: lines written through several flushes, by
// workers running at once, all arrive, whole and in order.
func TestManyLinesCrossTheBuffer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	l := create(t, Options{Path: path}, 2) // one file: the two flush into it
	const n = 20000                        // ~600 KB per client: several flushes each
	var wg sync.WaitGroup
	for id := range 2 { // each worker on its own goroutine, as in a run
		wg.Go(func() {
			for i := 0; i < n; i++ {
				l.Client(id).Done(0, at(time.Duration(i)*time.Microsecond), time.Millisecond, 0, 0)
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if len(lines) != 2*n {
		t.Fatalf("%d lines, want %d", len(lines), 2*n)
	}
	next := [2]int{1, 1}
	for j, line := range lines {
		f := strings.Fields(line)
		id, _ := strconv.Atoi(f[0])
		if len(f) != 6 || id < 0 || id > 1 || f[1] != strconv.Itoa(next[id]) {
			t.Fatalf("line %d: %q (client %d's next is %d)", j+1, line, id, next[id])
		}
		next[id]++
	}
}

// TestOptionsRefused says what to change; Paths never makes more files than
// clients.
func TestOptionsRefused(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		opts Options
		want string
	}{
		{Options{}, "no file name"},
		{Options{Path: "x", Files: -1}, "--event-log-files=-1"},
		{Options{Path: "x", Aggregate: 1500 * time.Millisecond}, "whole number of seconds"},
		{Options{Path: "x", Sample: 1.5}, "fraction"},
		{Options{Path: "x", Sample: 0.5, Aggregate: time.Second}, "give one of them"},
		{Options{Path: dir}, "--event-log"}, // a directory
	}
	for _, tc := range cases {
		if _, err := Create(tc.opts, 2); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", tc.opts, err, tc.want)
		}
	}
	if got := (Options{Path: "p", Files: 4}).Paths(2); strings.Join(got, " ") != "p p.1" {
		t.Errorf("4 files for 2 clients: %q", got)
	}
}

// TestAbortLeavesNothing: a run that measured nothing leaves no file.
func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	l, err := Create(Options{Path: filepath.Join(dir, "log"), Files: 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	l.Client(0).Done(0, t0, time.Millisecond, 0, 0)
	l.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %v", ents)
	}
}
