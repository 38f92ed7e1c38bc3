package sysinfo

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestMySQLFlavor(t *testing.T) {
	tests := []struct {
		name, version, comment, want string
	}{
		{"MariaDB 10.11", "10.11.6-MariaDB-0+deb12u1", "Debian 12", "MariaDB"},
		{"MariaDB by comment", "10.11.6", "mariadb.org binary distribution", "MariaDB"},
		{"MySQL 8.0.36", "8.0.36", "MySQL Community Server - GPL", "MySQL"},
		{"Percona 8.0.35-27", "8.0.35-27", "Percona Server (GPL), Release 27, Revision 2f8eeab2", "Percona"},
		{"TiDB 7.5.1", "8.0.11-TiDB-v7.5.1", "TiDB Server (Apache License 2.0) Community Edition, MySQL 8.0 compatible", "TiDB"},
		{"unknown compatible", "5.7.25", "", "MySQL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mysqlFlavor(tt.version, tt.comment); got != tt.want {
				t.Errorf("mysqlFlavor(%q, %q) = %q, want %q", tt.version, tt.comment, got, tt.want)
			}
		})
	}
}

func TestPgFlavor(t *testing.T) {
	tests := []struct{ version, want string }{
		{"PostgreSQL 15.5 (Debian 15.5-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit", "PostgreSQL"},
		{"CockroachDB CCL v23.1.11 (x86_64-pc-linux-gnu, built 2023/09/27 01:53:43, go1.19.10)", "CockroachDB"},
		{"PostgreSQL 11.2-YB-2.18.0.0-b0 on x86_64-pc-linux-gnu, compiled by clang version 15.0.3, 64-bit", "YugabyteDB"},
		{"PostgreSQL 12.12 (Greenplum Database 7.0.0 build commit:0a7a3566) on x86_64-pc-linux-gnu", "Greenplum"},
	}
	for _, tt := range tests {
		if got := pgFlavor(tt.version); got != tt.want {
			t.Errorf("pgFlavor(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}

func TestPgBytes(t *testing.T) {
	tests := []struct {
		setting, unit string
		want          int64
		ok            bool
	}{
		{"16384", "8kB", 128 << 20, true},
		{"4096", "kB", 4 << 20, true},
		{"1024", "MB", 1 << 30, true},
		{"512", "B", 512, true},
		{"-1", "8kB", 0, false},
		{"300", "s", 0, false},
		{"on", "", 0, false},
		{"100", "", 0, false},
	}
	for _, tt := range tests {
		got, ok := pgBytes(tt.setting, tt.unit)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pgBytes(%q, %q) = %d, %v; want %d, %v", tt.setting, tt.unit, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPickVariables(t *testing.T) {
	rows := [][]string{
		{"innodb_buffer_pool_size", "134217728"},
		{"Innodb_Flush_Method", "O_DIRECT"},
		{"autocommit", "ON"},
		{"broken"},
		{"tidb_txn_mode", "pessimistic"},
	}
	got := pickVariables(rows, mysqlVariables())
	want := map[string]string{
		"innodb_buffer_pool_size": "134217728",
		"innodb_flush_method":     "O_DIRECT",
		"tidb_txn_mode":           "pessimistic",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pickVariables = %v, want %v", got, want)
	}
}

func TestNotesJoinErrors(t *testing.T) {
	var n notes
	if n.String() != "" {
		t.Fatalf("empty notes = %q", n.String())
	}
	n.add(errString("first"))
	n.add(errString("second"))
	if got := n.String(); got != "first; second" {
		t.Errorf("notes = %q", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestDetectServerWithoutConnectionOnlyNotes(t *testing.T) {
	s := DetectServer(context.Background(), "mysql", nil)
	if s.Flavor != "" || s.Version != "" || s.Variables != nil || !strings.Contains(s.Note, "no connection") {
		t.Errorf("DetectServer(nil conn) = %+v", s)
	}
}
