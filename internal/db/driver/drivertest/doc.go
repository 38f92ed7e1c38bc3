// Package drivertest is for tests only: helpers that open drivers and load
// sysbench tables, and conformance checks that each driver package's tests run
// against their own driver. No production code imports it.
package drivertest
