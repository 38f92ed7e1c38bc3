package result

import (
	"fmt"
	"math"
	"slices"

	"github.com/fairbench/fairbench/internal/db/driver"
)

// AddWarning appends w to r.Warnings unless it is empty or already there.
func (r *Result) AddWarning(w string) {
	if w != "" && !slices.Contains(r.Warnings, w) {
		r.Warnings = append(r.Warnings, w)
	}
}

// AddNote appends a note unless it is empty or already there.
func (r *Result) AddNote(n string) {
	if n != "" && !slices.Contains(r.Notes, n) {
		r.Notes = append(r.Notes, n)
	}
}

// RateShortfall is the fraction of --rate below which an open-loop run is said
// not to have kept up (RateWarning).
const RateShortfall = 0.95

// rateSigmas is how many standard deviations of the schedule's own randomness
// a shortfall must also exceed: the arrivals of an open-loop run are a Poisson
// process, whose count over a short phase varies by its square root (200
// expected events vary by ±14), so a short run can miss 95 % by chance alone.
const rateSigmas = 3

// RateWarning returns the warning of an open-loop run (rate > 0 events/s over
// all threads) whose phase p achieved less than RateShortfall of the rate, by
// more than the schedule's randomness; "" when it kept up, for a closed loop,
// and for a phase with no time. The latency from the intended start is then
// the wait in a queue that grew all along, and the warning says so.
func RateWarning(rate float64, p Phase) string {
	if rate <= 0 || p.Seconds <= 0 {
		return ""
	}
	expected := rate * p.Seconds
	got := float64(p.Counts.Events)
	if got >= RateShortfall*expected || expected-got <= rateSigmas*math.Sqrt(expected) {
		return ""
	}
	achieved := got / p.Seconds
	return fmt.Sprintf("open loop not sustained: --rate asked for %s events/s, the measured phase achieved %s/s (%.1f %% of it, %.1f %% short); "+
		"the events queued behind one another, so the latency from the intended start measures a growing queue, not the system at that load "+
		"(lower --rate to what it sustains; the service time shows how long each event took)",
		rateFigure(rate), rateFigure(achieved), 100*got/expected, 100*(1-got/expected))
}

// rateFigure prints a rate as a whole number when it is large, with two
// decimals otherwise.
func rateFigure(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// TLSWarning returns the warning of a target that asked for TLS and ran in
// plain text: --mysql-ssl=on / --pgsql-ssl=on (TLS when the server offers it,
// libpq's "prefer") against a server without TLS, or any mode over a Unix
// socket, where TLS is not used; also when whether TLS was used could not be
// told. "" otherwise and when t.TLS is nil (SQLite, older results).
func TLSWarning(t Target) string {
	if t.TLS == nil || t.TLS.Used || t.SSL == "" || t.SSL == string(driver.SSLOff) {
		return ""
	}
	flag, host := "--mysql-ssl", "--mysql-host"
	if t.Driver == driver.KindPgSQL {
		flag, host = "--pgsql-ssl", "--pgsql-host"
	}
	if t.TLS.Note != "" {
		return fmt.Sprintf("%s=%s: could not tell whether the connections were encrypted (%s)", flag, t.SSL, t.TLS.Note)
	}
	if t.Socket != "" {
		return fmt.Sprintf("%s=%s connected in plain text: TLS is not used over a Unix socket, so the figures are those of unencrypted connections "+
			"(connect over TCP with %s for TLS, or use %s=off to ask for plain text)", flag, t.SSL, host, flag)
	}
	return fmt.Sprintf("%s=%s fell back to plain text: the server does not offer TLS, so the figures are those of unencrypted connections "+
		"(enable TLS on the server, use %s=required to refuse plain text, or %s=off to ask for plain text)", flag, t.SSL, flag, flag)
}
