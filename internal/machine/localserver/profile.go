package localserver

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/base/lazyre"
	"github.com/fairbench/fairbench/internal/record/result"
)

// DefaultDataBytes is the data set size a profile is sized for when
// Options.DataBytes is 0.
const DefaultDataBytes = bytesize.GiB

// Sizing rules of the profiles.
const (
	// cpuBoundHeadroom: a CPU-bound buffer pool holds the data set plus a
	// quarter (data × 1.25): InnoDB and PostgreSQL pages are not full, indexes
	// and undo/MVCC versions grow during a run, and the pool also holds the
	// adaptive hash index and change buffer. The seeds ran 34 GB of data in a
	// 36 GB pool and 69 GB in 80 GB; × 1.25 covers both.
	cpuBoundHeadroomNum, cpuBoundHeadroomDen = 5, 4
	// cpuBoundUnit: CPU-bound pools are rounded up to 128 MiB (InnoDB's
	// buffer pool chunk size), so that the setting the server reports is the
	// one written.
	cpuBoundUnit = 128 * bytesize.MiB
	// ioBoundUnit and ioBoundMin: an IO-bound pool is half the data set
	// (seed: 35 GB pool for 69 GB), rounded up to 8 MiB, at least 32 MiB.
	ioBoundUnit = 8 * bytesize.MiB
	ioBoundMin  = 32 * bytesize.MiB
	// memoryCapPercent: no profile gives the buffer pool more than 60% of the
	// machine's memory; the rest is for connections (2000 threads' buffers),
	// the operating system and the benchmark client when it shares the machine.
	memoryCapPercent = 60
	// Redo log (InnoDB) and WAL (PostgreSQL): a quarter of the buffer pool, as
	// in the seeds (8 GB of redo for a 36 GB pool, 20 GB for 80 GB), so that
	// write-heavy runs are not throttled by checkpoints. InnoDB gets at least
	// 256 MiB; PostgreSQL at least its own default of 1 GiB (less would only
	// add checkpoints); both at most 8 GiB (longer crash recovery and
	// start-up, little gain).
	redoMinMySQL = 256 * bytesize.MiB
	redoMinPG    = bytesize.GiB
	redoMax      = 8 * bytesize.GiB
)

// Fixed settings of the sized profiles: durable (every commit is flushed:
// innodb_flush_log_at_trx_commit=1, synchronous_commit=on, fsync=on, full page
// writes on) so that results reflect what a production server can do, enough
// connections for thread sweeps up to 1000+ (max_connections 2000 on MySQL,
// 1000 on PostgreSQL, whose backends are processes), no DNS look-ups
// (skip_name_resolve), and no performance_schema overhead on MariaDB (its
// default there; on MySQL it stays on, as MySQL ships it).
const (
	mysqlMaxConnections = "2000"
	pgMaxConnections    = "1000"
	// mysqlMaxPreparedStmts is the largest max_prepared_stmt_count: sysbench
	// and fairbench prepare about 20 statements per connection, which exceeds
	// the default of 16382 from about 800 threads (error 1461).
	mysqlMaxPreparedStmts = "1048576"
	pgCheckpointTimeout   = "15min"
)

// plan is a generated configuration with what Start needs besides.
type plan struct {
	flavor  Flavor
	profile Profile
	dir     string // absolute
	port    int    // 0 in a dry run: picked at start
	managed result.ManagedServer
	notes   []string
}

// Generate returns the settings and configuration file text a profile gives,
// without starting anything (fairbench server start --dry-run shows it, and
// every result of a managed server records it).
//
// The sized profiles set, on MariaDB and MySQL:
//
//	innodb_buffer_pool_size        cpu-bound: data × 1.25 rounded up to 128 MiB; io-bound: data × 0.5 (8 MiB steps, ≥ 32 MiB)
//	innodb_log_file_size           buffer pool / 4, from 256 MiB to 8 GiB (MySQL: innodb_redo_log_capacity, twice that)
//	innodb_flush_log_at_trx_commit 1, innodb_flush_method O_DIRECT
//	max_connections 2000, max_prepared_stmt_count 1048576, skip_name_resolve ON
//	performance_schema             OFF (MariaDB only)
//
// and on PostgreSQL:
//
//	shared_buffers                 as innodb_buffer_pool_size
//	max_wal_size                   shared_buffers / 4, from 1 GiB to 8 GiB; checkpoint_timeout 15min
//	synchronous_commit on, fsync on, full_page_writes on, max_connections 1000
//
// The buffer pool never exceeds 60% of the machine's memory: a cpu-bound
// profile that would need more is an error (the data set would not fit, so the
// run would not be CPU-bound); an io-bound pool is capped and the
// configuration says so in a "# note:" line. The user's Settings override the
// profile's (and are the whole tuning for ProfileCustom); the private paths,
// the port and the 127.0.0.1 bind address are always set and cannot be.
func Generate(opts Options) (result.ManagedServer, error) {
	p, err := generate(opts)
	if err != nil {
		return result.ManagedServer{}, err
	}
	return p.managed, nil
}

// generate is Generate returning the whole plan.
func generate(opts Options) (*plan, error) {
	flavor, err := ParseFlavor(string(opts.Flavor))
	if err != nil {
		return nil, err
	}
	profile, err := ParseProfile(string(opts.Profile))
	if err != nil {
		return nil, err
	}
	dir, err := absDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("port %d: give a port from 1 to 65535, or 0 for a free one", opts.Port)
	}
	if opts.DataBytes < 0 {
		return nil, fmt.Errorf("data set size %d is negative: give the size of the data the server will hold", opts.DataBytes)
	}
	user, err := normalizeSettings(flavor, opts.Settings)
	if err != nil {
		return nil, err
	}
	p := &plan{flavor: flavor, profile: profile, dir: dir, port: opts.Port}
	p.managed = result.ManagedServer{Flavor: string(flavor), Profile: string(profile), Settings: map[string]string{},
		CPUList: opts.CPUs.String()}

	var profileSettings map[string]string
	var reasons []string
	if profile != ProfileCustom {
		data := opts.DataBytes
		if data == 0 {
			data = DefaultDataBytes
		}
		p.managed.DataBytes = data
		memory := opts.MemoryBytes
		if memory == 0 {
			memory = machineMemory()
		}
		_, userSizedPool := user[bufferSetting(flavor)]
		s, err := sizeProfile(flavor, profile, data, memory, userSizedPool)
		if err != nil {
			return nil, err
		}
		p.notes = s.notes
		reasons = s.reasons
		profileSettings = s.settings(flavor)
	} else if opts.DataBytes > 0 {
		p.managed.DataBytes = opts.DataBytes
	}
	for k, v := range profileSettings {
		p.managed.Settings[k] = v
	}
	for k, v := range user {
		p.managed.Settings[k] = v
	}
	p.managed.Config = renderConfig(p, reasons, profileSettings, user)
	return p, nil
}

// RoomError is a profile this machine's memory cannot hold: cpu-bound for a
// data set whose buffer pool would take more than its share of memory. The
// request is sound, the machine too small for it (a suite can skip such a
// profile's cells).
type RoomError struct{ Msg string }

func (e *RoomError) Error() string { return e.Msg }

// sizing is what a profile computes from the data set and memory.
type sizing struct {
	buffer, redo int64
	reasons      []string // comment lines: how the sizes were derived
	notes        []string // where the profile could not be followed
}

// bufferSetting names the buffer pool setting of flavor.
func bufferSetting(f Flavor) string {
	if f.mysqlFamily() {
		return "innodb_buffer_pool_size"
	}
	return "shared_buffers"
}

// sizeProfile computes the buffer pool and redo/WAL sizes of a sized profile.
// userSizedPool skips the memory cap: the user chose the pool size.
func sizeProfile(flavor Flavor, profile Profile, data, memory int64, userSizedPool bool) (sizing, error) {
	s := sizing{}
	switch profile {
	case ProfileCPUBound:
		s.buffer = roundUp(data*cpuBoundHeadroomNum/cpuBoundHeadroomDen, cpuBoundUnit)
		s.reasons = append(s.reasons, fmt.Sprintf("cpu-bound: the buffer pool holds the whole data set: %s × 1.25, rounded up to 128 MiB = %s",
			bytesize.Format(data), bytesize.Format(s.buffer)))
	case ProfileIOBound:
		s.buffer = max(roundUp(data/2, ioBoundUnit), ioBoundMin)
		s.reasons = append(s.reasons, fmt.Sprintf("io-bound: the buffer pool holds about half the data set: %s × 0.5 = %s",
			bytesize.Format(data), bytesize.Format(s.buffer)))
	}
	switch {
	case memory <= 0:
		s.notes = append(s.notes, "machine memory unknown: the buffer pool is not capped at 60% of memory")
	case userSizedPool:
		s.reasons = append(s.reasons, fmt.Sprintf("%s is the user's (--set): the profile's size above only sizes the redo log / WAL", bufferSetting(flavor)))
	default:
		limit := roundDown(memory*memoryCapPercent/100, ioBoundUnit)
		if s.buffer > limit {
			if profile == ProfileCPUBound {
				fit := roundDown(roundDown(limit, cpuBoundUnit)*cpuBoundHeadroomDen/cpuBoundHeadroomNum, bytesize.MiB)
				return s, &RoomError{Msg: fmt.Sprintf("profile cpu-bound needs a buffer pool of %s for a data set of %s, more than %s (60%% of this machine's %s): "+
					"lower the data set to at most %dMiB, or use --profile=io-bound",
					bytesize.Format(s.buffer), bytesize.Format(data), bytesize.Format(limit), bytesize.Format(memory), fit/bytesize.MiB)}
			}
			s.notes = append(s.notes, fmt.Sprintf("io-bound buffer pool capped at %s (60%% of this machine's %s) instead of %s: "+
				"it holds %d%% of the data set, not 50%%; lower the data set to %dMiB or less for the intended ratio",
				bytesize.Format(limit), bytesize.Format(memory), bytesize.Format(s.buffer), limit*100/data, 2*limit/bytesize.MiB))
			s.buffer = limit
		}
	}
	redoMin, what := redoMinMySQL, "innodb_log_file_size"
	if flavor == FlavorPostgres {
		redoMin, what = redoMinPG, "max_wal_size"
	}
	s.redo = min(max(roundUp(s.buffer/4, bytesize.MiB), redoMin), redoMax)
	s.reasons = append(s.reasons, fmt.Sprintf("%s: buffer pool / 4, from %s to %s = %s",
		what, bytesize.Format(redoMin), bytesize.Format(redoMax), bytesize.Format(s.redo)))
	return s, nil
}

// settings returns the profile's settings for flavor.
func (s sizing) settings(f Flavor) map[string]string {
	switch f {
	case FlavorPostgres:
		return map[string]string{
			"shared_buffers":     pgSize(s.buffer),
			"max_wal_size":       pgSize(s.redo),
			"checkpoint_timeout": pgCheckpointTimeout,
			"synchronous_commit": "on",
			"fsync":              "on",
			"full_page_writes":   "on",
			"max_connections":    pgMaxConnections,
		}
	}
	m := map[string]string{
		"innodb_buffer_pool_size":        mysqlSize(s.buffer),
		"innodb_flush_log_at_trx_commit": "1",
		"innodb_flush_method":            "O_DIRECT",
		"max_connections":                mysqlMaxConnections,
		"max_prepared_stmt_count":        mysqlMaxPreparedStmts,
		"skip_name_resolve":              "ON",
	}
	if f == FlavorMariaDB {
		m["innodb_log_file_size"] = mysqlSize(s.redo)
		m["performance_schema"] = "OFF"
	} else {
		// MySQL 8.0.30+ replaced the two redo files by one capacity.
		m["innodb_redo_log_capacity"] = mysqlSize(2 * s.redo)
	}
	return m
}

// Setting names: the servers' own characters. MySQL-family names are
// normalised to underscores (my.cnf treats - and _ alike); PostgreSQL names
// are case-insensitive and may contain a dot (extension settings).
var (
	mysqlSettingName = lazyre.New(`^[a-z][a-z0-9_.]*$`)
	pgSettingName    = lazyre.New(`^[a-z_][a-z0-9_.$]*$`)
)

// privateSetting reports whether fairbench always sets name itself on
// flavor, and which flag to use instead (empty: none).
func privateSetting(f Flavor, name string) (flag string, private bool) {
	if f.mysqlFamily() {
		switch name {
		case "port":
			return "--port", true
		case "datadir", "socket", "pid_file", "log_error", "tmpdir", "defaults_file", "defaults_extra_file":
			return "--dir", true
		case "bind_address", "user", "mysqlx":
			return "", true
		}
		return "", false
	}
	switch name {
	case "port":
		return "--port", true
	case "unix_socket_directories", "data_directory", "config_file", "hba_file", "ident_file", "external_pid_file":
		return "--dir", true
	case "listen_addresses":
		return "", true
	}
	return "", false
}

// normalizeSettings validates the user's settings and returns them under the
// server's canonical names.
func normalizeSettings(f Flavor, in map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := in[k]
		name := strings.ToLower(strings.TrimSpace(k))
		valid := pgSettingName
		if f.mysqlFamily() {
			name = strings.ReplaceAll(name, "-", "_")
			valid = mysqlSettingName
		}
		if !valid().MatchString(name) {
			return nil, fmt.Errorf("setting %q: not a %s setting name (letters, digits and _ only)", k, f)
		}
		if flag, ok := privateSetting(f, name); ok {
			if flag != "" {
				return nil, fmt.Errorf("setting %s is fairbench's to set (the server must stay private): use %s instead", name, flag)
			}
			return nil, fmt.Errorf("setting %s is fairbench's to set: the server listens on 127.0.0.1 and runs as the user fairbench chooses", name)
		}
		if strings.ContainsAny(v, "\n\r\x00") {
			return nil, fmt.Errorf("setting %s: the value must be one line", name)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("setting %s given twice (as %q and another spelling): give it once", name, k)
		}
		out[name] = strings.TrimSpace(v)
	}
	return out, nil
}

// renderConfig writes the configuration file: a header saying how it was
// made, the private section, the profile's settings and the user's.
func renderConfig(p *plan, reasons []string, profileSettings, user map[string]string) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("# Generated by fairbench (fairbench server start): flavor %s, profile %s.", p.flavor, p.profile)
	if p.managed.DataBytes > 0 && p.profile != ProfileCustom {
		line("# Sized for a data set of %s.", bytesize.Format(p.managed.DataBytes))
	}
	for _, r := range reasons {
		line("# %s", r)
	}
	for _, n := range p.notes {
		line("# note: %s", n)
	}
	setting := func(k, v string) {
		if p.flavor.mysqlFamily() {
			if v == "" {
				line("%s", k)
			} else {
				line("%s = %s", k, mysqlValue(v))
			}
			return
		}
		line("%s = %s", k, pgValue(v))
	}
	if p.flavor.mysqlFamily() {
		section := "mysqld"
		if p.flavor == FlavorMariaDB {
			section = "mariadbd"
		}
		line("")
		line("[%s]", section)
	}
	line("")
	line("# private to this server (always set by fairbench)")
	l := layout{dir: p.dir}
	portLine := func() {
		if p.port == 0 {
			line("# port: a free port is picked at start")
		} else {
			setting("port", strconv.Itoa(p.port))
		}
	}
	if p.flavor.mysqlFamily() {
		setting("datadir", l.data())
		setting("socket", l.socket(p.flavor, p.port))
		portLine()
		setting("bind_address", "127.0.0.1")
		setting("pid_file", l.pidFile())
		setting("log_error", l.log(p.flavor))
		setting("tmpdir", l.dir)
		if p.flavor == FlavorMySQL {
			setting("mysqlx", "OFF")
		}
	} else {
		setting("listen_addresses", "127.0.0.1")
		portLine()
		setting("unix_socket_directories", l.dir)
	}
	writeGroup := func(title string, m map[string]string, skip map[string]string) {
		var keys []string
		for k := range m {
			if _, overridden := skip[k]; !overridden {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return
		}
		sort.Strings(keys)
		line("")
		line("# %s", title)
		for _, k := range keys {
			setting(k, m[k])
		}
	}
	writeGroup(fmt.Sprintf("profile %s", p.profile), profileSettings, user)
	writeGroup("user settings (--set)", user, nil)
	return b.String()
}

// mysqlPlain is a my.cnf value that needs no quotes.
var mysqlPlain = lazyre.New(`^[A-Za-z0-9_.,:/+\-=@%*]+$`)

// mysqlValue quotes v for my.cnf when it holds spaces, # or quotes.
func mysqlValue(v string) string {
	if mysqlPlain().MatchString(v) {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// pgPlain is a postgresql.conf value that needs no quotes: a number with an
// optional unit ("128MB", "15min", "0.9") or a word ("on", "O_DIRECT").
var pgPlain = lazyre.New(`^(-?[0-9]+(\.[0-9]+)?[A-Za-z]*|[A-Za-z_][A-Za-z0-9_]*)$`)

// pgValue quotes v for postgresql.conf unless it is a plain number or word.
func pgValue(v string) string {
	if pgPlain().MatchString(v) {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(v) + "'"
}
