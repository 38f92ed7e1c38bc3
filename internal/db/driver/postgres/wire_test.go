package postgres

import "testing"

func TestRowsAffected(t *testing.T) {
	cases := map[string]int64{
		"UPDATE 3": 3, "INSERT 0 1": 1, "SELECT 10000": 10000, "DELETE 0": 0,
		"BEGIN": 0, "COMMIT": 0, "CREATE TABLE": 0, "": 0, "COPY 200000": 200000,
	}
	for tag, want := range cases {
		if got := rowsAffected([]byte(tag)); got != want {
			t.Errorf("rowsAffected(%q) = %d, want %d", tag, got, want)
		}
	}
}
