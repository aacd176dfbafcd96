package turn

import (
	"io"
	"net"
	"sync"
	"time"
)

// listener caps the TURN-over-TCP connections per address and in total
// at accept, and gives each an idle read deadline, so that holding the
// TCP port open costs an attacker a connection slot of their own address
// and nothing more.
type listener struct {
	net.Listener
	r *Relay

	mu      sync.Mutex
	closed  bool
	perAddr map[string]int
	conns   map[*conn]struct{}
}

func (l *listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		host := hostOf(c.RemoteAddr())
		l.mu.Lock()
		switch {
		case l.closed:
			l.mu.Unlock()
			_ = c.Close()
			return nil, net.ErrClosed
		case len(l.conns) >= l.r.cfg.MaxConns, l.perAddr[host] >= l.r.cfg.MaxConnsPerAddr:
			l.mu.Unlock()
			_ = c.Close()
			l.r.stats.connsRefused.Add(1)
			l.r.log.Debug("turn tcp connection refused: over the cap", "addr", host)
			continue
		}
		tc := &conn{Conn: c, l: l, host: host}
		l.perAddr[host]++
		l.conns[tc] = struct{}{}
		l.mu.Unlock()
		return tc, nil
	}
}

// Close stops accepting and closes every connection accepted.
func (l *listener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	closeAll(&l.mu, l.conns)
	return err
}

// closeAll closes every member of set, read under mu (a member's Close
// takes mu to leave the set).
func closeAll[C interface {
	comparable
	io.Closer
}](mu *sync.Mutex, set map[C]struct{}) {
	mu.Lock()
	list := make([]C, 0, len(set))
	for c := range set {
		list = append(list, c)
	}
	mu.Unlock()
	for _, c := range list {
		_ = c.Close()
	}
}

func (l *listener) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// conn is one accepted TURN-over-TCP connection.
type conn struct {
	net.Conn
	l    *listener
	host string
	once sync.Once
}

// Read closes a connection silent for IdleTimeout: pion's read loop ends
// on the deadline's error.
func (c *conn) Read(b []byte) (int, error) {
	_ = c.Conn.SetReadDeadline(time.Now().Add(c.l.r.cfg.IdleTimeout))
	return c.Conn.Read(b)
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		defer c.l.mu.Unlock()
		delete(c.l.conns, c)
		if c.l.perAddr[c.host]--; c.l.perAddr[c.host] <= 0 {
			delete(c.l.perAddr, c.host)
		}
	})
	return err
}
