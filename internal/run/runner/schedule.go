package runner

import (
	"math"
	"time"

	"github.com/fairbench/fairbench/internal/record/result"
	"github.com/fairbench/fairbench/internal/workload/randgen"
)

// arrivalStream is the randgen stream of thread i's --rate schedule, apart
// from the thread's own (stream i, the workload's draws) and the loaders'
// (1<<62 | …): the reporter replays it to count the events due.
func arrivalStream(i int) uint64 { return 1<<61 | uint64(uint32(i)) }

// schedule is one thread's open-loop arrivals: a Poisson process of
// Rate/Threads events per second from the start of the run. Its times depend
// only on the seed and the thread, so that two copies (the thread's and the
// reporter's) give the same times.
type schedule struct {
	rng    *randgen.Source
	perSec float64
	next   time.Time // the last arrival drawn
	drawn  int64     // arrivals drawn
}

func newSchedule(r *run, thread int) *schedule {
	return &schedule{rng: r.deps.Rand.Source(arrivalStream(thread)),
		perSec: r.cfg.Rate / float64(r.cfg.Threads), next: r.t0}
}

// advance draws the next arrival and returns its time.
func (s *schedule) advance() time.Time {
	s.next = s.next.Add(time.Duration(-math.Log(1-s.rng.Float64()) / s.perSec * float64(time.Second)))
	s.drawn++
	return s.next
}

// dueBy counts the arrivals at or before t (t never goes backwards between
// calls): it draws ahead, keeping the first arrival after t for the next call.
func (s *schedule) dueBy(t time.Time) int64 {
	if s.drawn == 0 {
		s.advance()
	}
	for !s.next.After(t) {
		s.advance()
	}
	return s.drawn - 1
}

// openLoop counts, at now, the events of the --rate schedule that are due and
// not started (the queue: arrivals passed minus events begun, per thread) and
// the events in flight (threads waiting for the server: inside an event,
// out of its keying or think time). scheds are the reporter's
// copies of the threads' schedules.
func openLoop(now time.Time, workers []*worker, scheds []*schedule) *result.OpenLoop {
	ol := &result.OpenLoop{}
	for i, w := range workers {
		if w.inCall() {
			ol.Concurrency++
		}
		if late := scheds[i].dueBy(now) - w.begun.Load(); late > 0 {
			ol.QueueLength += late
		}
	}
	return ol
}
