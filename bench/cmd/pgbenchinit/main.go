// Command pgbenchinit runs fairbench's pgbench -i (pgbench.Init) for the
// bench scripts (bench/vs-pgbench-init.sh), with pgbench's flag names, until
// the CLI has its own `fairbench pgbench -i`. Not part of the product.
//
//	go build -o bin/pgbenchinit ./bench/cmd/pgbenchinit
//	bin/pgbenchinit --db-driver=pgsql --host=127.0.0.1 --user=postgres --db=bench -s 10 -I dtgvp
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"

	"github.com/spf13/pflag"

	"github.com/fairbench/fairbench/internal/db/driver"
	"github.com/fairbench/fairbench/internal/db/driver/open"
	"github.com/fairbench/fairbench/internal/workload/pgbench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pgbenchinit:", err)
		os.Exit(1)
	}
}

func run() error {
	opts := pgbench.DefaultInitOptions()
	cfg := driver.Config{Prepared: true}
	var host, profile string
	var port int
	fs := pflag.NewFlagSet("pgbenchinit", pflag.ContinueOnError)
	fs.StringVar(&cfg.Kind, "db-driver", driver.KindPgSQL, "pgsql, mysql or sqlite")
	fs.StringVar(&host, "host", "127.0.0.1", "server host")
	fs.IntVar(&port, "port", 5432, "server port")
	fs.StringVar(&cfg.Socket, "socket", "", "Unix socket (wins over --host)")
	fs.StringVar(&cfg.User, "user", "postgres", "user")
	fs.StringVar(&cfg.Database, "db", "", "database")
	fs.StringVar(&cfg.Path, "path", "", "SQLite file")
	fs.IntVarP(&opts.Scale, "scale", "s", opts.Scale, "scale factor")
	fs.StringVarP(&opts.Steps, "init-steps", "I", opts.Steps, "initialization steps")
	fs.IntVarP(&opts.FillFactor, "fillfactor", "F", opts.FillFactor, "fill factor")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "log progress every 5 s")
	fs.BoolVar(&opts.ForeignKeys, "foreign-keys", false, "add foreign keys")
	fs.BoolVar(&opts.Unlogged, "unlogged-tables", false, "unlogged tables")
	fs.IntVar(&opts.Partitions, "partitions", 0, "partitions of pgbench_accounts")
	fs.StringVar(&opts.PartitionMethod, "partition-method", "", "range or hash")
	fs.StringVar(&opts.Tablespace, "tablespace", "", "tablespace of the tables")
	fs.StringVar(&opts.IndexTablespace, "index-tablespace", "", "tablespace of the primary keys")
	fs.StringVar(&profile, "cpuprofile", "", "write a CPU profile of Init to this file")
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	cfg.Hosts, cfg.Ports = []string{host}, []int{port}
	if err := opts.Validate(cfg.Kind); err != nil {
		return err
	}
	db, err := open.Driver(cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	_, err = pgbench.Init(ctx, db, opts, os.Stderr, nil)
	return err
}
