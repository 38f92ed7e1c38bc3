package localserver

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fairbench/fairbench/internal/base/bytesize"
)

func TestParseFlavorAndProfile(t *testing.T) {
	for in, want := range map[string]Flavor{"mariadb": FlavorMariaDB, "MySQL": FlavorMySQL, "postgresql": FlavorPostgres, " pg ": FlavorPostgres} {
		if got, err := ParseFlavor(in); err != nil || got != want {
			t.Errorf("ParseFlavor(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]Profile{"cpu-bound": ProfileCPUBound, "IO-BOUND": ProfileIOBound, "custom": ProfileCustom, "io": ProfileIOBound} {
		if got, err := ParseProfile(in); err != nil || got != want {
			t.Errorf("ParseProfile(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFlavor("oracle"); err == nil || err.Error() != `unknown server flavor "oracle": use mariadb, mysql or postgres` {
		t.Errorf("ParseFlavor(oracle) error = %v", err)
	}
	if _, err := ParseFlavor(""); err == nil || !strings.Contains(err.Error(), "no server flavor given") {
		t.Errorf("ParseFlavor(\"\") error = %v", err)
	}
	if _, err := ParseProfile("fast"); err == nil || err.Error() != `unknown server profile "fast": use cpu-bound, io-bound or custom` {
		t.Errorf("ParseProfile(fast) error = %v", err)
	}
}

func TestGenerateSizes(t *testing.T) {
	const memory = 16 * bytesize.GiB
	for _, tc := range []struct {
		name    string
		opts    Options
		want    map[string]string // settings that must have these values
		absent  []string          // settings that must not be set
		inConf  []string          // lines the config must contain
		data    int64             // recorded DataBytes
		noteHas string            // a "# note:" the config must carry
	}{
		{
			name: "mariadb cpu-bound 1 GiB default",
			opts: Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound},
			want: map[string]string{"innodb_buffer_pool_size": "1280M", "innodb_log_file_size": "320M",
				"innodb_flush_log_at_trx_commit": "1", "innodb_flush_method": "O_DIRECT", "max_connections": "2000",
				"skip_name_resolve": "ON", "performance_schema": "OFF", "max_prepared_stmt_count": "1048576"},
			inConf: []string{"[mariadbd]", "innodb_buffer_pool_size = 1280M", "bind_address = 127.0.0.1", "# port: a free port is picked at start"},
			data:   bytesize.GiB,
		},
		{
			name:   "mariadb cpu-bound tiny rounds up to 128 MiB, redo at its minimum",
			opts:   Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, DataBytes: 64 * bytesize.MiB},
			want:   map[string]string{"innodb_buffer_pool_size": "128M", "innodb_log_file_size": "256M"},
			data:   64 * bytesize.MiB,
			inConf: []string{"# Sized for a data set of 64 MiB."},
		},
		{
			name: "mariadb io-bound is half the data",
			opts: Options{Flavor: FlavorMariaDB, Profile: ProfileIOBound, DataBytes: 10 * bytesize.GiB, Port: 3399},
			want: map[string]string{"innodb_buffer_pool_size": "5G", "innodb_log_file_size": "1280M"},
			// The seeds' 69 GB IO-bound set-up used a 35 GB pool.
			inConf: []string{"port = 3399", "io-bound: the buffer pool holds about half the data set"},
			data:   10 * bytesize.GiB,
		},
		{
			name: "mariadb io-bound tiny has a floor",
			opts: Options{Flavor: FlavorMariaDB, Profile: ProfileIOBound, DataBytes: 16 * bytesize.MiB},
			want: map[string]string{"innodb_buffer_pool_size": "32M", "innodb_log_file_size": "256M"},
			data: 16 * bytesize.MiB,
		},
		{
			name: "redo log capped at 8 GiB",
			opts: Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, DataBytes: 80 * bytesize.GiB, MemoryBytes: 256 * bytesize.GiB},
			want: map[string]string{"innodb_buffer_pool_size": "100G", "innodb_log_file_size": "8G"},
			data: 80 * bytesize.GiB,
		},
		{
			name:   "mysql uses redo capacity and keeps performance_schema",
			opts:   Options{Flavor: FlavorMySQL, Profile: ProfileCPUBound, DataBytes: 4 * bytesize.GiB},
			want:   map[string]string{"innodb_buffer_pool_size": "5G", "innodb_redo_log_capacity": "2560M"},
			absent: []string{"innodb_log_file_size", "performance_schema"},
			inConf: []string{"[mysqld]", "mysqlx = OFF"},
			data:   4 * bytesize.GiB,
		},
		{
			name: "postgres cpu-bound",
			opts: Options{Flavor: FlavorPostgres, Profile: ProfileCPUBound, DataBytes: 8 * bytesize.GiB, MemoryBytes: 32 * bytesize.GiB},
			want: map[string]string{"shared_buffers": "10GB", "max_wal_size": "2560MB", "checkpoint_timeout": "15min",
				"synchronous_commit": "on", "fsync": "on", "full_page_writes": "on", "max_connections": "1000"},
			inConf: []string{"listen_addresses = '127.0.0.1'", "shared_buffers = 10GB"},
			data:   8 * bytesize.GiB,
		},
		{
			name: "postgres io-bound WAL has PostgreSQL's floor",
			opts: Options{Flavor: FlavorPostgres, Profile: ProfileIOBound, DataBytes: 64 * bytesize.MiB},
			want: map[string]string{"shared_buffers": "32MB", "max_wal_size": "1GB"},
			data: 64 * bytesize.MiB,
		},
		{
			name:    "io-bound capped at 60% of memory, with a note",
			opts:    Options{Flavor: FlavorPostgres, Profile: ProfileIOBound, DataBytes: 40 * bytesize.GiB},
			want:    map[string]string{"shared_buffers": "9824MB"}, // 16 GiB × 0.6 rounded down to 8 MiB
			data:    40 * bytesize.GiB,
			noteHas: "# note: io-bound buffer pool capped at 9824 MiB (60% of this machine's 16 GiB) instead of 20 GiB: it holds 23% of the data set, not 50%; lower the data set to 19648MiB or less",
		},
		{
			name: "user settings override the profile and are normalised",
			opts: Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, DataBytes: 64 * bytesize.MiB,
				Settings: map[string]string{"innodb-buffer-pool-size": "1G", "Innodb_IO_Capacity": "2000", "performance_schema": "ON"}},
			want:   map[string]string{"innodb_buffer_pool_size": "1G", "innodb_io_capacity": "2000", "performance_schema": "ON", "innodb_log_file_size": "256M"},
			inConf: []string{"# user settings (--set)", "innodb_buffer_pool_size = 1G", "innodb_io_capacity = 2000"},
			data:   64 * bytesize.MiB,
		},
		{
			name: "a user-sized pool skips the cpu-bound memory check",
			opts: Options{Flavor: FlavorPostgres, Profile: ProfileCPUBound, DataBytes: 100 * bytesize.GiB,
				Settings: map[string]string{"shared_buffers": "1GB"}},
			want: map[string]string{"shared_buffers": "1GB"},
			data: 100 * bytesize.GiB,
		},
		{
			name: "custom is only the user's settings",
			opts: Options{Flavor: FlavorPostgres, Profile: ProfileCustom,
				Settings: map[string]string{"work_mem": "64MB", "search_path": "sbtest, public"}},
			want:   map[string]string{"work_mem": "64MB", "search_path": "sbtest, public"},
			absent: []string{"shared_buffers", "max_connections"},
			inConf: []string{"work_mem = 64MB", "search_path = 'sbtest, public'", "unix_socket_directories = "},
		},
		{
			name:   "custom mariadb quotes values and writes bare options",
			opts:   Options{Flavor: FlavorMariaDB, Profile: ProfileCustom, Settings: map[string]string{"skip-log-bin": "", "init_connect": `SET NAMES "utf8mb4" # x`}},
			want:   map[string]string{"skip_log_bin": "", "init_connect": `SET NAMES "utf8mb4" # x`},
			absent: []string{"innodb_buffer_pool_size"},
			inConf: []string{"\nskip_log_bin\n", `init_connect = "SET NAMES \"utf8mb4\" # x"`, "datadir = "},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Dir = "/srv/fairbench/server"
			if opts.MemoryBytes == 0 {
				opts.MemoryBytes = memory
			}
			ms, err := Generate(opts)
			if err != nil {
				t.Fatalf("Generate: %v", err)
			}
			if ms.Flavor != string(opts.Flavor) || ms.Profile != string(opts.Profile) || ms.DataBytes != tc.data {
				t.Errorf("flavor, profile, data = %q, %q, %d; want %q, %q, %d", ms.Flavor, ms.Profile, ms.DataBytes, opts.Flavor, opts.Profile, tc.data)
			}
			for k, v := range tc.want {
				if got, ok := ms.Settings[k]; !ok || got != v {
					t.Errorf("setting %s = %q (set: %v), want %q", k, got, ok, v)
				}
			}
			for _, k := range tc.absent {
				if v, ok := ms.Settings[k]; ok {
					t.Errorf("setting %s = %q, want it unset", k, v)
				}
			}
			if opts.Profile == ProfileCustom && len(ms.Settings) != len(opts.Settings) {
				t.Errorf("custom settings = %v, want only the user's %v", ms.Settings, opts.Settings)
			}
			for _, line := range tc.inConf {
				if !strings.Contains(ms.Config, line) {
					t.Errorf("config lacks %q:\n%s", line, ms.Config)
				}
			}
			if tc.noteHas != "" && !strings.Contains(ms.Config, tc.noteHas) {
				t.Errorf("config lacks the note %q:\n%s", tc.noteHas, ms.Config)
			}
			if tc.noteHas == "" && strings.Contains(ms.Config, "# note:") {
				t.Errorf("unexpected note:\n%s", ms.Config)
			}
			// Every setting appears in the config exactly once.
			for k := range ms.Settings {
				if n := strings.Count(ms.Config, "\n"+k+" = ") + strings.Count(ms.Config, "\n"+k+"\n"); n != 1 {
					t.Errorf("setting %s appears %d times in the config:\n%s", k, n, ms.Config)
				}
			}
			again, err := Generate(opts)
			if err != nil || !reflect.DeepEqual(again, ms) {
				t.Errorf("Generate is not deterministic")
			}
		})
	}
}

func TestGeneratePrivatePaths(t *testing.T) {
	dir := t.TempDir()
	ms, err := Generate(Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, Dir: dir, Port: 4123, DataBytes: 64 * bytesize.MiB, MemoryBytes: 8 * bytesize.GiB})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"datadir = " + filepath.Join(dir, "data"),
		"socket = " + filepath.Join(dir, "mysqld.sock"),
		"port = 4123",
		"pid_file = " + filepath.Join(dir, "mysqld.pid"),
		"log_error = " + filepath.Join(dir, "error.log"),
	} {
		if !strings.Contains(ms.Config, line+"\n") {
			t.Errorf("config lacks %q:\n%s", line, ms.Config)
		}
	}
	if _, ok := ms.Settings["datadir"]; ok {
		t.Errorf("private paths are not settings: %v", ms.Settings)
	}
	// A relative directory becomes absolute.
	rel, err := Generate(Options{Flavor: FlavorPostgres, Profile: ProfileCustom, Dir: "fairbench-data/pg"})
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("fairbench-data/pg")
	if !strings.Contains(rel.Config, "unix_socket_directories = '"+abs+"'") {
		t.Errorf("relative dir not made absolute:\n%s", rel.Config)
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"bad flavor", Options{Flavor: "oracle", Profile: ProfileCPUBound}, `unknown server flavor "oracle": use mariadb, mysql or postgres`},
		{"bad profile", Options{Flavor: FlavorMariaDB, Profile: "turbo"}, `unknown server profile "turbo": use cpu-bound, io-bound or custom`},
		{"no dir", Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, Dir: " "}, "no server directory given"},
		{"cpu-bound does not fit", Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, DataBytes: 10 * bytesize.GiB, MemoryBytes: 8 * bytesize.GiB},
			"profile cpu-bound needs a buffer pool of 12.5 GiB for a data set of 10 GiB, more than 4912 MiB (60% of this machine's 8 GiB): lower the data set to at most 3891MiB, or use --profile=io-bound"},
		{"negative data", Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, DataBytes: -1}, "is negative"},
		{"bad port", Options{Flavor: FlavorMariaDB, Profile: ProfileCPUBound, Port: 70000}, "port 70000: give a port from 1 to 65535"},
		{"private port", Options{Flavor: FlavorMariaDB, Profile: ProfileCustom, Settings: map[string]string{"port": "3306"}},
			"setting port is fairbench's to set (the server must stay private): use --port instead"},
		{"private datadir spelled with dashes", Options{Flavor: FlavorMySQL, Profile: ProfileCustom, Settings: map[string]string{"DataDir": "/var/lib/mysql"}},
			"setting datadir is fairbench's to set (the server must stay private): use --dir instead"},
		{"private listen address", Options{Flavor: FlavorPostgres, Profile: ProfileIOBound, Settings: map[string]string{"listen_addresses": "*"}},
			"setting listen_addresses is fairbench's to set: the server listens on 127.0.0.1"},
		{"bad name", Options{Flavor: FlavorPostgres, Profile: ProfileCustom, Settings: map[string]string{"shared buffers": "1GB"}},
			`setting "shared buffers": not a postgres setting name`},
		{"multi-line value", Options{Flavor: FlavorPostgres, Profile: ProfileCustom, Settings: map[string]string{"work_mem": "1MB\nfsync = off"}},
			"setting work_mem: the value must be one line"},
		{"same setting twice", Options{Flavor: FlavorMariaDB, Profile: ProfileCustom, Settings: map[string]string{"max-connections": "10", "max_connections": "20"}},
			"setting max_connections given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.Dir == "" {
				opts.Dir = "/srv/fairbench/server"
			}
			if opts.MemoryBytes == 0 {
				opts.MemoryBytes = 16 * bytesize.GiB
			}
			ms, err := Generate(opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Generate = %+v, %v; want an error with %q", ms, err, tc.want)
			}
			// Only the machine's memory makes a RoomError: the request is
			// sound there (a suite skips such a profile), a mistake elsewhere.
			var room *RoomError
			if errors.As(err, &room) != (tc.name == "cpu-bound does not fit") {
				t.Errorf("RoomError %v for %q", errors.As(err, &room), tc.name)
			}
		})
	}
}
