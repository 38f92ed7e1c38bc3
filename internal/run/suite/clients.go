package suite

import (
	"fmt"
	"time"
	"unicode"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/workload"
)

// Limits of the clients: key.
const (
	defaultClientsWait = 10 * time.Minute
	maxClients         = workload.MaxClients
	minClientsWait     = time.Second
	// maxRunIDLen bounds --run-id: it is a key column of the sync table.
	maxRunIDLen = 100
)

// ClientOptions place one `suite run` among the plan's coordinated clients.
type ClientOptions struct {
	// ID is this client's id, from 0 to clients.count-1 (--client-id); client
	// 0 is the leader, which alone runs the steps that change data.
	ID int
	// RunID is the token every client of one launch is given (--run-id): it
	// keys the meeting points in the target's sync table.
	RunID string

	// lead is how far ahead of the moment all clients are ready the leader
	// sets a cell's start (default startLead); poll how often a waiting client
	// reads the sync table (default pollEvery). Tests shorten them.
	lead, poll time.Duration
}

// Coordinated reports whether the plan names coordinated clients.
func (p *Plan) Coordinated() bool { return p.Clients != nil }

// ClientCount is the number of coordinated clients (0 without clients:).
func (p *Plan) ClientCount() int {
	if p.Clients == nil {
		return 0
	}
	return p.Clients.Count
}

func (p *Plan) validateClients(Env) error {
	c := p.Clients
	if c == nil {
		return nil
	}
	if c.Count < 1 || c.Count > maxClients {
		return p.errAt("clients.count", "clients.count %d: give the number of coordinated clients running this plan, 1 to %d", c.Count, maxClients)
	}
	if c.Wait == 0 {
		c.Wait = Seconds(defaultClientsWait)
	}
	if c.Wait.D() < minClientsWait {
		return p.errAt("clients.wait", "clients.wait %s is too short to meet: give at least 1s (default 10m)", c.Wait.D())
	}
	if p.Server != nil {
		return p.errAt("clients", "coordinated clients cannot share a server the plan starts (server:): each client would start its own on its own machine. "+
			"Start the server once (fairbench server start, or your own), then point target: at it and remove server:")
	}
	if p.kind() == driver.KindSQLite {
		return p.errAt("clients", "coordinated clients need a database server they all reach: with the embedded SQLite target each client would load and measure its own file. "+
			"Give target.driver: mysql or pgsql and the server's host")
	}
	return nil
}

// NoClientID is ClientOptions.ID when --client-id was not given.
const NoClientID = -1

// CheckClient checks --client-id and --run-id (c; ID NoClientID when not
// given) against the plan: both are needed with clients.count above 1 and
// refused without clients:. A single client gets id 0 and, without --run-id,
// a run id from now.
func (p *Plan) CheckClient(c *ClientOptions, now time.Time) error {
	if !p.Coordinated() {
		if c != nil && (c.ID != NoClientID || c.RunID != "") {
			return fmt.Errorf("--client-id and --run-id are for plans that name coordinated clients, and %s has no clients: section: "+
				"add clients: {count: N} to the plan, or run it without these flags", p.File())
		}
		return nil
	}
	if c == nil {
		return fmt.Errorf("%s names coordinated clients (clients:) but no client options were given", p.File())
	}
	n := p.Clients.Count
	if c.ID == NoClientID {
		if n > 1 {
			return fmt.Errorf("%s names %d coordinated clients (clients.count): give each its --client-id (0 to %d) and every one the same --run-id, "+
				"e.g. the launcher's $(date +%%s) (in a Kubernetes Indexed Job: --client-id $JOB_COMPLETION_INDEX --run-id $START_AT)", p.File(), n, n-1)
		}
		c.ID = 0
	}
	if c.ID < 0 || c.ID >= n {
		return fmt.Errorf("--client-id %d is outside 0..%d (clients.count is %d in %s): number the clients from 0 to N-1", c.ID, n-1, n, p.File())
	}
	if c.RunID == "" {
		if n > 1 {
			return fmt.Errorf("--run-id is missing: give every one of the %d clients the same token, e.g. the launcher's $(date +%%s), so that they meet in one run", n)
		}
		c.RunID = now.UTC().Format("20060102-150405.000000")
	}
	return checkRunID(c.RunID)
}

// checkRunID refuses run ids that cannot key the sync table or name a directory.
func checkRunID(id string) error {
	if len(id) > maxRunIDLen {
		return fmt.Errorf("--run-id is %d characters long: give at most %d", len(id), maxRunIDLen)
	}
	for i, r := range id {
		if !unicode.IsPrint(r) || r == ' ' || r == '/' || r == '\\' {
			return fmt.Errorf("--run-id %q has %q at byte %d: use letters, digits and . _ - : + (a Unix time or an RFC 3339 time will do)", id, r, i+1)
		}
	}
	return nil
}
