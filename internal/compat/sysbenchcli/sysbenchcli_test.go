package sysbenchcli

import (
	"strings"
	"testing"
)

// TestMistypes checks what Translate says of a mistyped command, test or
// option: the nearest when one is near, and an option's value blamed on the
// unknown option before it.
func TestMistypes(t *testing.T) {
	cat := testCatalog("")
	cat.Suggest = func(word string) []string {
		if word == "runn" {
			return []string{"run"}
		}
		return nil
	}
	for _, tc := range []struct{ line, want string }{
		{"runn", `unknown command "runn"; did you mean "run"?`},
		{"runn oltp_read_write --threads=2", `unknown command "runn"; did you mean "run"?`},
		{"bogus", `unknown command "bogus": 'fairbench --help' lists the commands`},
		{"bogus run", `"bogus" is neither a fairbench command nor a sysbench test; write one of`},
		{"oltp_read_writ run", `"oltp_read_writ" is not a sysbench test; did you mean "oltp_read_write"?`},
		{"oltp_read_write runn", `unknown command "runn" for oltp_read_write (did you mean "run"?)`},
		{"run oltp_read_write --thread=2", "unknown flag --thread; did you mean --threads?"},
		{"run oltp_read_write --thread 2", "unknown flag --thread; did you mean --threads?"},
		{"oltp_read_write --thread 2 run", "unknown flag --thread; did you mean --threads?"},
		{"--thread 2 oltp_read_write run", "unknown flag --thread; did you mean --threads?"},
		{"run oltp_read_write --zzzzzz=1", "unknown flag --zzzzzz: neither sysbench's oltp_read_write nor fairbench takes it"},
		{"run oltp_read_write extra", `unexpected "extra" after the command`},
		{"run oltp_read_write --time", "--time needs a value (e.g. --time=8)"},
	} {
		_, err := Translate(strings.Fields(tc.line), cat)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.line, err, tc.want)
		}
	}
	// A switch given alone is still on.
	c, err := Translate(strings.Fields("run oltp_read_write --histogram --mysql-ssl"), cat)
	if err != nil || strings.Join(c.Args, " ") != "run oltp_read_write --histogram=true --mysql-ssl=on" {
		t.Errorf("switches alone: %+v, %v", c, err)
	}
}
