package localserver

import (
	"strconv"

	"github.com/fairbench/fairbench/internal/base/bytesize"
)

// mysqlSize writes n as my.cnf does: "2G", "320M" or plain bytes.
func mysqlSize(n int64) string {
	switch {
	case n%bytesize.GiB == 0:
		return strconv.FormatInt(n/bytesize.GiB, 10) + "G"
	case n%bytesize.MiB == 0:
		return strconv.FormatInt(n/bytesize.MiB, 10) + "M"
	}
	return strconv.FormatInt(n, 10)
}

// pgSize writes n as postgresql.conf does: "2GB", "320MB" or "kB" (binary units).
func pgSize(n int64) string {
	switch {
	case n%bytesize.GiB == 0:
		return strconv.FormatInt(n/bytesize.GiB, 10) + "GB"
	case n%bytesize.MiB == 0:
		return strconv.FormatInt(n/bytesize.MiB, 10) + "MB"
	}
	return strconv.FormatInt((n+bytesize.KiB-1)/bytesize.KiB, 10) + "kB"
}

// roundUp rounds n up to a multiple of unit.
func roundUp(n, unit int64) int64 { return (n + unit - 1) / unit * unit }

// roundDown rounds n down to a multiple of unit.
func roundDown(n, unit int64) int64 { return n / unit * unit }
