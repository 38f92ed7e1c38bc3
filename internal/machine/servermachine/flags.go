package servermachine

import (
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// funcValue is a flag whose value Set checks and stores.
type funcValue struct {
	typ, text string
	set       func(string) error
}

func (v *funcValue) String() string { return v.text }
func (v *funcValue) Type() string   { return v.typ }
func (v *funcValue) Set(s string) error {
	if err := v.set(s); err != nil {
		return err
	}
	v.text = s
	return nil
}

// RegisterFlags registers the --server-* flags that describe the server's
// machines on fs, storing into s. Values are checked as they are set (an
// error names the flag through pflag); call s.Validate after parsing for the
// checks across flags. withPID adds --server-pid, which only a command that
// reaches a local server can use.
func RegisterFlags(fs *pflag.FlagSet, s *Spec, withPID bool) {
	fs.Var(&funcValue{typ: "[ROLE=]FILE,...", set: func(v string) error {
		refs, err := ParseFileRefs(v)
		if err != nil {
			return unwrapField(err)
		}
		s.Files = append(s.Files, refs...)
		return nil
	}}, "server-machine", "the database server's machine, from 'fairbench sysinfo --format json' run there: FILE, or ROLE=FILE,… for a cluster (tidb=a.json,tikv=b.json)")
	fs.StringVar(&s.Role, "server-role", "", "the part of the database the machine described by the --server-* flags runs (default server; with several machines, which one they describe)")
	fs.Var(&funcValue{typ: "string", set: func(v string) error {
		a, err := NormalizeArch(v)
		s.Arch = a
		return err
	}}, "server-arch", "the server machine's architecture: amd64 (x86_64), arm64 (aarch64), …")
	fs.StringVar(&s.CPUModel, "server-cpu-model", "", "the server machine's CPU model, e.g. \"Kunpeng 920\" or \"Intel Xeon Gold 6266C @ 3.00GHz\"")
	fs.Var(&funcValue{typ: "int", set: func(v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > 65536 {
			return unwrapField(fieldErr("vcpus", "%q: give the machine's logical CPUs, 1 to 65536", v))
		}
		s.VCPUs = n
		return nil
	}}, "server-vcpus", "the server machine's logical CPUs (vCPUs)")
	fs.Var(&funcValue{typ: "float", set: func(v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return unwrapField(fieldErr("ghz", "%q is not a number of GHz", v))
		}
		if err := CheckGHz(f); err != nil {
			return err
		}
		s.GHz = f
		return nil
	}}, "server-ghz", "the server machine's CPU frequency in GHz, for compare and cost (wins over the model name's and cpufreq's)")
	fs.Var(&funcValue{typ: "size", set: func(v string) error {
		if _, err := ParseMemory(v); err != nil {
			return err
		}
		s.Memory = v
		return nil
	}}, "server-memory", "the server machine's memory: 64GiB, 64G, 512MiB or bytes")
	fs.StringVar(&s.InstanceType, "server-instance-type", "", "the server machine's cloud instance type, e.g. m6g.4xlarge")
	fs.StringVar(&s.Region, "server-region", "", "the server machine's cloud region, e.g. eu-west-1")
	fs.StringVar(&s.Zone, "server-zone", "", "the server machine's availability zone, e.g. eu-west-1a")
	if withPID {
		fs.Var(&funcValue{typ: "int", set: func(v string) error {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				return unwrapField(fieldErr("pid", "%q is not a process id", v))
			}
			s.PID = n
			return nil
		}}, "server-pid", "the local database server's process id, when fairbench cannot find it by its socket or port (another user's process)")
	}
}

// unwrapField drops the flag name from a FieldError: pflag names the flag itself.
func unwrapField(err error) error {
	if fe, ok := err.(*FieldError); ok {
		return plainError(fe.Msg)
	}
	return err
}

type plainError string

func (e plainError) Error() string { return string(e) }
