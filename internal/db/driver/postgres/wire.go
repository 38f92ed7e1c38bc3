package postgres

import (
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// wire runs the measured path directly on pgconn's protocol frontend instead
// of through pgconn's query methods: those arm a 15 ms "slow write" timer on
// every flush, and re-arming a timer wakes another runtime thread each time,
// which cost more client CPU than the whole rest of a point select. A
// statement here is one write and the reads of its answer, with message
// structs reused and no result values copied.
type wire struct {
	fe    *pgproto3.Frontend
	bind  pgproto3.Bind
	exec  pgproto3.Execute
	sync  pgproto3.Sync
	query pgproto3.Query
}

// execPrepared runs prepared statement name with text parameters.
func (c *Conn) execPrepared(name string, values [][]byte) (rows int, affected int64, err error) {
	w := &c.wire
	w.bind.PreparedStatement = name
	w.bind.Parameters = values
	w.fe.SendBind(&w.bind)
	w.bind.Parameters = nil
	w.fe.SendExecute(&w.exec)
	w.fe.SendSync(&w.sync)
	return c.roundTrip()
}

// execSimple runs sql over the simple query protocol.
func (c *Conn) execSimple(sql string) (rows int, affected int64, err error) {
	w := &c.wire
	w.query.String = sql
	w.fe.SendQuery(&w.query)
	w.query.String = ""
	return c.roundTrip()
}

// roundTrip sends the queued messages and reads the answers up to
// ReadyForQuery, counting data rows; affected is the count of the last
// command. A server error is returned once the server is ready again; an I/O
// error or a FATAL server error loses the connection.
func (c *Conn) roundTrip() (rows int, affected int64, err error) {
	fe := c.wire.fe
	if err := fe.Flush(); err != nil {
		return 0, 0, c.lose(err)
	}
	var pgErr *pgconn.PgError
	for {
		msg, err := fe.Receive()
		if err != nil {
			return rows, affected, c.lose(err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			rows++
		case *pgproto3.CommandComplete:
			affected = rowsAffected(m.CommandTag)
		case *pgproto3.ErrorResponse:
			if pgErr == nil {
				pgErr = pgconn.ErrorResponseToPgError(m)
			}
			if strings.EqualFold(m.Severity, "FATAL") {
				return rows, affected, c.lose(pgErr)
			}
		case *pgproto3.ReadyForQuery:
			if pgErr != nil {
				return rows, affected, pgErr
			}
			return rows, affected, nil
		}
	}
}

// lose closes the socket of a connection whose protocol state is unknown and
// marks err as a lost connection.
func (c *Conn) lose(err error) error {
	c.broken = true
	_ = c.pg.Conn().Close()
	return &lostError{err}
}

// rowsAffected reads the count at the end of a command tag ("UPDATE 3",
// "INSERT 0 1", "SELECT 5"); tags without one give 0.
func rowsAffected(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	if i == len(tag) || i == 0 || tag[i-1] != ' ' {
		return 0
	}
	var n int64
	for _, d := range tag[i:] {
		n = n*10 + int64(d-'0')
	}
	return n
}
