// Package sysinfo fingerprints the machine a result came from and the database
// server it measured, so results from different machines can be compared later.
//
// Fingerprinting never fails a run: whatever cannot be read is left empty (for the
// server, Note says why).
package sysinfo
