//go:build !js

// Package transportfigures measures the network transports against each
// other in one run, for the bench report: the bytes on the wire per input
// datagram over QUIC (transport/quic) and over WebRTC (transport/webrtc,
// DTLS and SCTP), the time from dialing to the first datagram from the
// host and to an authoritative client's first host state (with the mode
// the caller hands it in Config.Authority: nothing under internal/ imports
// a mode), and a host's CPU per client per tick. Real sockets on loopback
// (WebRTC's bytes on pion's virtual network, where every packet can be
// counted) and real time, so a loaded machine moves the timings; the
// byte counts do not depend on load.
//
// The CPU figure runs the clients in a child process (the same binary,
// started with an environment variable), so that the host's own CPU time
// is what getrusage reports: a program that calls Measure must call
// ClientsMain first thing in main (a test binary, in TestMain).
package transportfigures

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Config says what to measure; zero fields mean the defaults.
type Config struct {
	Payload   int           // input datagram size, bytes (default 32)
	Datagrams int           // input datagrams sent for the wire figures (default 120: 2 s at Rate)
	Rate      int           // inputs per second (default 60)
	Connects  int           // connections timed, the median kept (default 5)
	Clients   int           // clients of the CPU figure (default 8)
	Ticks     int           // ticks of the CPU figure (default 300: 5 s at Rate)
	State     int           // the host's state datagram per client per tick, bytes (default 200)
	Limit     time.Duration // bound on each measurement (default 60 s)
	// Authority runs the first-state figure's host and client; nil leaves
	// that figure out (Transport.FirstState 0, no row for it).
	Authority Authority `json:"-"`
}

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Payload, 32)
	def(&c.Datagrams, 120)
	def(&c.Rate, 60)
	def(&c.Connects, 5)
	def(&c.Clients, 8)
	def(&c.Ticks, 300)
	def(&c.State, 200)
	if c.Limit == 0 {
		c.Limit = 60 * time.Second
	}
	return c
}

// Wire is the traffic one input datagram costs, on average: UDP payload
// bytes and packets from the client (Up) and back (Down: acknowledgements).
type Wire struct {
	UpBytes, UpPackets, DownBytes, DownPackets float64
}

// ipUDPHeaders is what IPv4 and UDP add to each packet.
const ipUDPHeaders = 28

// OnTheWire is the bytes both ways with IPv4 and UDP headers.
func (w Wire) OnTheWire() float64 {
	return w.UpBytes + w.DownBytes + ipUDPHeaders*(w.UpPackets+w.DownPackets)
}

// Transport is one transport's figures.
type Transport struct {
	Name    string
	Wire    Wire
	Connect time.Duration // median, dial to the host's first datagram
	// FirstState is the median time from dialing to an authoritative
	// client's first host state applied (the host steps at Rate); 0 when
	// not measured (no Config.Authority).
	FirstState time.Duration
	HostCPU    time.Duration // host CPU time per client per tick
}

// Figures is one run's results.
type Figures struct {
	Config     Config
	Transports []Transport // QUIC, then WebRTC
}

// Measure runs every figure for QUIC and WebRTC.
func Measure(cfg Config) (Figures, error) {
	cfg = cfg.withDefaults()
	f := Figures{Config: cfg}
	for _, m := range []struct {
		name    string
		wire    func(Config) (Wire, error)
		connect func(Config) (time.Duration, error)
		state   func(Config) (time.Duration, error)
		cpu     func(Config) (time.Duration, error)
	}{
		{"quic", quicWire, quicConnect, quicConnectState, quicHostCPU},
		{"webrtc", webrtcWire, webrtcConnect, webrtcConnectState, webrtcHostCPU},
	} {
		tr := Transport{Name: m.name}
		var err error
		if tr.Wire, err = m.wire(cfg); err != nil {
			return f, fmt.Errorf("%s wire: %w", m.name, err)
		}
		if tr.Connect, err = median(cfg.Connects, func() (time.Duration, error) { return m.connect(cfg) }); err != nil {
			return f, fmt.Errorf("%s connect: %w", m.name, err)
		}
		if cfg.Authority != nil {
			if tr.FirstState, err = median(cfg.Connects, func() (time.Duration, error) { return m.state(cfg) }); err != nil {
				return f, fmt.Errorf("%s first state: %w", m.name, err)
			}
		}
		if tr.HostCPU, err = m.cpu(cfg); err != nil {
			return f, fmt.Errorf("%s host CPU: %w", m.name, err)
		}
		f.Transports = append(f.Transports, tr)
	}
	return f, nil
}

func median(n int, f func() (time.Duration, error)) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for range n {
		d, err := f()
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	slices.Sort(ds)
	return ds[len(ds)/2], nil
}

// Rows are the figures as table rows for the bench report: name, value,
// unit, and what it is compared with.
func (f Figures) Rows() [][4]string {
	var rows [][4]string
	c := f.Config
	for _, t := range f.Transports {
		rows = append(rows,
			[4]string{t.Name + " wire/input", fmt.Sprintf("%.1f", t.Wire.OnTheWire()), "B", fmt.Sprintf("%d-B payload at %d Hz; up %.1f B in %.2f pkts, down %.1f B in %.2f pkts, +%d B IP/UDP per pkt",
				c.Payload, c.Rate, t.Wire.UpBytes, t.Wire.UpPackets, t.Wire.DownBytes, t.Wire.DownPackets, ipUDPHeaders)},
			[4]string{t.Name + " connect", fmt.Sprintf("%.1f", float64(t.Connect)/float64(time.Millisecond)), "ms", fmt.Sprintf("dial to the host's first datagram, median of %d, loopback", c.Connects)})
		if t.FirstState > 0 {
			rows = append(rows, [4]string{t.Name + " first state", fmt.Sprintf("%.1f", float64(t.FirstState)/float64(time.Millisecond)), "ms", fmt.Sprintf("dial to an authority client's first host state (host at %d Hz), median of %d", c.Rate, c.Connects)})
		}
		rows = append(rows,
			[4]string{t.Name + " host CPU/client/tick", fmt.Sprintf("%.1f", float64(t.HostCPU)/float64(time.Microsecond)), "us", fmt.Sprintf("%d clients, %d ticks at %d Hz: %d-B input up, %d-B state down", c.Clients, c.Ticks, c.Rate, c.Payload, c.State)},
		)
	}
	return rows
}

// Print writes the rows as an aligned table.
func (f Figures) Print(w io.Writer) {
	rows := f.Rows()
	wName, wVal := 0, 0
	for _, r := range rows {
		wName, wVal = max(wName, len(r[0])), max(wVal, len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %*s %-2s  %s\n", wName, r[0], wVal, r[1], r[2], r[3])
	}
	if len(f.Transports) == 2 {
		q, r := f.Transports[0], f.Transports[1]
		state := ""
		if r.FirstState > 0 {
			state = fmt.Sprintf(", first state %.2fx", float64(q.FirstState)/float64(r.FirstState))
		}
		fmt.Fprintf(w, "%s\n", strings.TrimSpace(fmt.Sprintf("quic/webrtc: wire %.2fx, connect %.2fx%s, host CPU %.2fx",
			q.Wire.OnTheWire()/r.Wire.OnTheWire(), float64(q.Connect)/float64(r.Connect), state, float64(q.HostCPU)/float64(r.HostCPU))))
	}
}
