package bundle

import (
	"strings"
	"testing"
)

func TestRedactText(t *testing.T) {
	for _, tc := range []struct {
		key, in, want string
	}{
		{"", "--pgsql-password=s3cret --pgsql-host=db1.example", "--pgsql-password=[redacted] --pgsql-host=host-1"},
		{"", "host=db1.example user=carol password=s3cret dbname=x", "host=host-1 user=user-1 password=[redacted] dbname=x"},
		{"", "PGPASSWORD=s3cret MYSQL_PWD='s3cret' ok", "PGPASSWORD=[redacted] MYSQL_PWD='[redacted]' ok"},
		{"", "carol:s3cret@tcp(10.0.0.9:3306)/sbtest", "user-1:[redacted]@tcp(ip-1:3306)/sbtest"},
		{"", "postgres://carol:s3cret@[2001:db8::7]:5432/x", "postgres://user-1:[redacted]@[ip-1]:5432/x"},
		{"", "from 10.0.0.9,10.0.0.10 and fe80::1:2:3", "from ip-1,ip-2 and ip-3"},
		{"", "loopback 127.0.0.1 ::1 localhost stay", "loopback 127.0.0.1 ::1 localhost stay"},
		{"", "password_env: DB_PW\ntoken: abc", "password_env: DB_PW\ntoken: [redacted]"},
		{"", "/home/carol/plans/p.yaml", "/home/user-1/plans/p.yaml"},
		{"version", "8.0.36.1-cluster", "8.0.36.1-cluster"},
		{"", "at 12:00:10 on 2024-03-01T12:00:10Z", "at 12:00:10 on 2024-03-01T12:00:10Z"},
		{"", "api_key=abc ssl-key=/x/key.pem key: matrix.threads", "api_key=[redacted] ssl-key=[redacted] key: matrix.threads"},
	} {
		r := newRedactor(false)
		if got := r.text(tc.in, tc.key); got != tc.want {
			t.Errorf("text(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactByKeyAndKnownWords(t *testing.T) {
	r := newRedactor(false)
	for _, tc := range []struct{ key, in, want string }{
		{"hostname", "bench1", "host-1"},
		{"hosts", "db1:3306, db2", "host-2:3306, host-3"},
		{"agent", "tidb=http://10.0.0.5:9901,tikv=http://db1:9901", "tidb=http://ip-1:9901,tikv=http://host-2:9901"},
		{"mysql-user", "carol", "user-1"},
		{"mysql-password", "***", "***"},
		{"pgsql-password", "x", Redacted},
		{"warning", "bench1 saw db1 and db10 at bench1.lan", "host-1 saw host-2 and db10 at bench1.lan"},
		{"role", "db1", "db1"},
		{"socket", "/run/mysqld/mysqld.sock", "/run/mysqld/mysqld.sock"},
		{"host", "/var/run/postgresql", "/var/run/postgresql"},
	} {
		if got := r.value(tc.key, tc.in); got != tc.want {
			t.Errorf("value(%q, %q) = %q, want %q", tc.key, tc.in, got, tc.want)
		}
	}
	c := r.counts()
	if c[RedactedHost] != 3 || c[RedactedIP] != 1 || c[RedactedUser] != 1 || c[RedactedSecret] != 1 {
		t.Errorf("counts %v", c)
	}
	keep := newRedactor(true)
	if got := keep.text("--mysql-host=db1 at 10.0.0.5 --mysql-password=x", ""); !strings.Contains(got, "db1 at 10.0.0.5") || strings.Contains(got, "=x") {
		t.Errorf("--keep-hosts: %q", got)
	}
}
