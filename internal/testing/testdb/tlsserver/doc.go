// Package tlsserver is for tests only: it generates a throw-away PKI (a CA, server
// certificates and a client certificate) and starts PRIVATE MariaDB and
// PostgreSQL instances with TLS switched on, so that the drivers' --mysql-ssl and
// --pgsql-ssl modes can be tested against real servers without touching the
// machine's shared servers (which run with TLS off).
//
// Every instance lives in a temporary directory, listens on 127.0.0.1 on a free
// port and is stopped and removed when the test ends. Each server has the same
// accounts: UserTLS, which may log in over any TLS connection but never over a
// plain one, and UserCert, which must also present a client certificate signed by
// the CA. Both own the database Database and log in with Password.
//
// The servers come from the Debian packages mariadb-server and postgresql
// (scripts/test.sh installs them); a test fails with the package to install when a
// binary is missing; under -short (`make unit`) StartMariaDB and StartPostgreSQL
// skip the test instead.
package tlsserver

import "time"

// The accounts and database every private server is set up with.
const (
	// UserTLS may connect over TLS only (MariaDB: REQUIRE SSL; PostgreSQL:
	// hostssl, and hostnossl reject for everyone).
	UserTLS = "fb"
	// UserCert must present a client certificate signed by Certs.CA (MariaDB:
	// REQUIRE X509; PostgreSQL: clientcert=verify-ca).
	UserCert = "fbcert"
	// Password is the password of both accounts.
	Password = "fb-tls-secret"
	// Database is the database both accounts may use.
	Database = "fb"
)

// startTimeout bounds starting a server and waiting for it; it is a safety net
// against a hung server, not an expectation of how fast the machine is.
const startTimeout = 90 * time.Second
