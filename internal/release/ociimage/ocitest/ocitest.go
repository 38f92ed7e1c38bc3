// Package ocitest helps the tests of internal/release/ociimage and cmd/ociimage: it
// writes their inputs (header-only ELF files of any machine, static or dynamic,
// enough for ociimage.CheckBinary, which reads only headers; a CA bundle) and
// reads their outputs back (an oci-archive, an OCI layout) with
// go-containerregistry.
package ocitest

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// Interp is the dynamic loader FakeELF names when asked for a dynamic binary.
const Interp = "/lib64/ld-linux-x86-64.so.2"

// FakeELF writes a 64-bit little-endian ELF executable of the given machine
// to dir/name: a header and one PT_LOAD, and a PT_INTERP naming Interp when
// dynamic is true. It cannot run; it returns the path.
func FakeELF(t testing.TB, dir, name string, machine elf.Machine, typ elf.Type, dynamic bool) string {
	t.Helper()
	const ehsize, phentsize = 64, 56
	nprogs := 1
	if dynamic {
		nprogs = 2
	}
	dataOff := uint64(ehsize + phentsize*nprogs)
	interp := append([]byte(Interp), 0)
	size := dataOff + uint64(len(interp))
	h := elf.Header64{
		Type: uint16(typ), Machine: uint16(machine), Version: uint32(elf.EV_CURRENT),
		Entry: 0x400000 + dataOff, Phoff: ehsize, Ehsize: ehsize, Phentsize: phentsize, Phnum: uint16(nprogs),
		Shentsize: 64,
	}
	copy(h.Ident[:], elf.ELFMAG)
	h.Ident[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	h.Ident[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	h.Ident[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	progs := []elf.Prog64{{
		Type: uint32(elf.PT_LOAD), Flags: uint32(elf.PF_R | elf.PF_X),
		Vaddr: 0x400000, Paddr: 0x400000, Filesz: size, Memsz: size, Align: 0x1000,
	}}
	if dynamic {
		progs = append(progs, elf.Prog64{
			Type: uint32(elf.PT_INTERP), Flags: uint32(elf.PF_R), Off: dataOff,
			Vaddr: 0x400000 + dataOff, Paddr: 0x400000 + dataOff, Filesz: uint64(len(interp)), Memsz: uint64(len(interp)), Align: 1,
		})
	}
	var buf bytes.Buffer
	for _, v := range []any{h, progs, interp} {
		if err := binary.Write(&buf, binary.LittleEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// CABundle writes a PEM bundle of one (made-up) certificate to dir and returns its path.
func CABundle(t testing.TB, dir string) string {
	t.Helper()
	const pem = "# test CA\n-----BEGIN CERTIFICATE-----\nMIIBfakefakefakefakefakefakefakefakefakefakefakefakefakefake\n-----END CERTIFICATE-----\n"
	path := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(path, []byte(pem), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
