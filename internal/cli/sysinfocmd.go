package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fairbench/fairbench/internal/base/bytesize"
	"github.com/fairbench/fairbench/internal/machine/sysinfo"
	"github.com/fairbench/fairbench/internal/record/result"
)

// sysinfoCommand is `fairbench sysinfo`: this machine's fingerprint, which
// run records as the machine a local server ran on and --server-machine
// reads for a remote one.
func (a *App) sysinfoCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "sysinfo [--format text|json]",
		Short: "Print this machine's fingerprint; its JSON describes a database host to --server-machine",
		Long: `sysinfo prints what fairbench records about the machine it runs on: CPU model,
vendor and core, logical CPUs, cores and sockets, frequencies, memory, OS,
virtualization. Run it on a database host whose server fairbench reaches over
the network, and give its JSON to run, suite or import, so that compare, cost
and report know the machine under test:

  ssh db1 fairbench sysinfo --format json > db1.json
  fairbench run oltp_read_write --mysql-host=db1 --server-machine db1.json …`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := jsonFormat(format)
			if err != nil {
				return err
			}
			m := sysinfo.LocalMachine()
			if asJSON {
				return writeJSON(a.Stdout, m)
			}
			writeMachine(a.Stdout, m)
			return nil
		},
	}
	addFormatFlag(cmd, &format, "text (a summary) or json (what --server-machine reads)")
	return cmd
}

// writeMachine writes a readable summary of a machine's fingerprint, one
// "name: value" line per known part.
func writeMachine(w io.Writer, m result.Machine) {
	line := func(name, value string) {
		if value != "" {
			fmt.Fprintf(w, "%-15s %s\n", name+":", value)
		}
	}
	join := func(parts ...string) string {
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		return strings.Join(kept, ", ")
	}
	count := func(n int, one, many string) string {
		switch {
		case n <= 0:
			return ""
		case n == 1:
			return "1 " + one
		}
		return strconv.Itoa(n) + " " + many
	}
	mhz := func(what string, v float64) string {
		if v <= 0 {
			return ""
		}
		return fmt.Sprintf("%s %.0f MHz", what, v)
	}
	line("Host", m.Hostname)
	line("Architecture", m.Arch)
	line("CPU", m.CPUModel)
	cpuID := join(m.Vendor, m.Core)
	if m.Implementer != "" {
		cpuID = join(cpuID, "implementer "+m.Implementer+" part "+m.Part)
	}
	line("CPU vendor", cpuID)
	line("CPUs", join(count(m.LogicalCPUs, "logical", "logical"), count(m.Cores, "core", "cores"), count(m.Sockets, "socket", "sockets"), count(m.ThreadsPerCore, "thread per core", "threads per core")))
	if m.CPUList != "" {
		line("CPU list", m.CPUList)
	}
	line("Frequency", join(mhz("max", m.MaxMHz), mhz("min", m.MinMHz), mhz("cpuinfo", m.MHz), mhz("current", m.CurMHz)))
	line("Features", strings.Join(m.Features, " "))
	if m.MemoryBytes > 0 {
		line("Memory", bytesize.Format(m.MemoryBytes))
	}
	line("System", join(m.SystemVendor, m.Product))
	virt := m.Virtualization
	if m.Container && virt != "container" {
		virt = join(virt, "in a container")
	}
	line("Virtualization", virt)
	line("Cloud", join(m.InstanceType, m.Region, m.Zone))
	line("OS", join(m.OS, m.Kernel))
	line("Go", m.GoVersion)
}
