package testdb

import "testing"

func TestDatabasesAreCreatedAndNamedUniquely(t *testing.T) {
	a, b := MySQL(t), MySQL(t)
	if a.Database == b.Database || a.Database == "" {
		t.Fatalf("mysql databases not unique: %q %q", a.Database, b.Database)
	}
	p := PgSQL(t)
	if p.Database == "" {
		t.Fatal("postgres database not named")
	}
}
