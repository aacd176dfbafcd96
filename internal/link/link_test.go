package link_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// owner is the smallest owner of an endpoint: a host or a client of a
// made-up protocol whose one payload message is an InputAck carrying a
// counter, the way an authoritative host and its clients would plug in
// their own messages.
type owner struct {
	ep     link.Endpoint
	frame  rollnet.Frame // our counter, sent every tick
	heard  []rollnet.Frame
	events []rollnet.Event
	checks link.Checks
	wrong  rollnet.Frame // from this frame on, our checksums differ (a desync)
}

func newOwner(t *testing.T, nw *local.Network, clock *local.Clock, name string, optional bool, peers ...string) *owner {
	tr, err := nw.Endpoint(name)
	require.NoError(t, err)
	n, err := link.Resolve(rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}})
	require.NoError(t, err)
	o := &owner{ep: link.NewEndpoint(tr, n, 9), heard: make([]rollnet.Frame, len(peers)), events: make([]rollnet.Event, 0, 256),
		checks: link.NewChecks(n.CheckInterval), wrong: 1 << 30}
	for i, p := range peers {
		l := link.New(transport.Peer(p))
		l.Optional = optional
		l.Offer = link.SettingsHash(1, 2)
		l.Expect = link.SettingsHash(1, 2)
		require.NoError(t, o.ep.AddLink(l))
		o.heard[i] = rollnet.NoFrame
	}
	return o
}

func (o *owner) tick() {
	o.tickOnly()
	o.events = o.ep.Events(o.events[:0])
}

func (o *owner) tickOnly() {
	o.ep.Clock()
	for {
		l, typ, b, ok := o.ep.Receive()
		if !ok {
			break
		}
		switch typ {
		case wire.TypeSyncRequest, wire.TypeSyncReply:
			if o.ep.HandleSync(l, typ, b) {
				o.ep.Synced(l)
			}
			continue
		}
		if l.State() != link.Running || o.ep.HandleCommon(l, typ, b) {
			continue
		}
		m, _, err := wire.ParseInputAck(b)
		if err != nil || typ != wire.TypeInputAck {
			l.Malformed()
			continue
		}
		if !o.ep.Accept(l, m.Seq) {
			continue
		}
		o.heard[l.Index()] = max(o.heard[l.Index()], rollnet.Frame(m.Ack))
		l.Acked = rollnet.Frame(m.Ack) - 1 // it has our counter up to here
		if m.HasChecksum {
			o.ep.ReceivedChecksum(l, &o.checks, rollnet.Frame(m.CheckFrame), m.Checksum, m.Seq)
		}
	}
	// Every frame confirmed at once here: checksum the grid frames.
	for ; o.checks.Next <= o.frame; o.checks.Next += rollnet.Frame(o.checks.Interval) {
		sum := uint32(o.checks.Next)
		if o.checks.Next >= o.wrong {
			sum++
		}
		o.ep.RecordChecksum(&o.checks, o.checks.Next, sum)
	}
	for _, l := range o.ep.Links() {
		o.ep.Tick(l)
		if l.State() != link.Running {
			continue
		}
		m := wire.InputAck{Seq: l.Seq(), Ack: int32(o.frame)}
		f, sum, ok := o.ep.CarriedChecksum(l, &o.checks)
		m.HasChecksum, m.CheckFrame, m.Checksum = ok, int32(f), sum
		o.ep.Send(l, m.Append(o.ep.Buffer()))
		if ok {
			o.ep.CarriedChecksumSent(l, o.frame) // each message's counter is new
		}
		o.ep.KeepAlive(l, 0)
	}
	o.frame++
}

// TestEndpointHostAndClients: one host, two clients, a payload of the
// owner's own: the handshakes complete, payload flows both ways, the round
// trip is measured, a client's Close reaches the host as a disconnection
// well before the timeout, and nothing allocates at steady state.
func TestEndpointHostAndClients(t *testing.T) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	nw, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
	require.NoError(t, err)
	require.NoError(t, nw.SetDefaultLink(local.Link{Latency: 40 * time.Millisecond}))
	host := newOwner(t, nw, clock, "host", true, "c0", "c1")
	c0 := newOwner(t, nw, clock, "c0", false, "host")
	c1 := newOwner(t, nw, clock, "c1", false, "host")
	all := []*owner{host, c0, c1}
	step := func(n int) {
		for range n {
			for _, o := range all {
				o.tick()
			}
			clock.Advance(time.Second / 60)
		}
	}
	step(120)
	for _, o := range all {
		for i, l := range o.ep.Links() {
			require.Equal(t, link.Running, l.State())
			require.Positive(t, o.heard[i], "payload heard")
			st := l.Stats()
			require.InDelta(t, 80*time.Millisecond, st.RTT, float64(40*time.Millisecond), "RTT")
			require.Zero(t, st.Malformed)
		}
		require.NoError(t, o.ep.Err())
	}
	if !race.Enabled {
		allocs.RequireZero(t, 100, func() { step(1) })
	}
	c1.ep.Close()
	all = all[:2]
	gone := false
	for range 60 { // one second, far less than the 5 s timeout
		step(1)
		for _, e := range host.events {
			gone = gone || (e.Kind == rollnet.EventDisconnected && e.Peer == "c1")
		}
	}
	require.True(t, gone, "the host saw c1 leave")
	require.Equal(t, link.Running, host.ep.Links()[0].State(), "c0 plays on")
}

// TestEndpointOptionalFailure: a client whose settings differ fails its
// own link at the host (reported, the host plays on) and fails the client.
func TestEndpointOptionalFailure(t *testing.T) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	nw, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
	require.NoError(t, err)
	host := newOwner(t, nw, clock, "host", true, "c0")
	c0 := newOwner(t, nw, clock, "c0", false, "host")
	c0.ep.Links()[0].Offer = link.SettingsHash(1, 3)
	c0.ep.Links()[0].Expect = link.SettingsHash(1, 3)
	var failed bool
	for range 60 {
		host.tick()
		c0.tick()
		for _, e := range host.events {
			failed = failed || (e.Kind == rollnet.EventSyncFailed && e.Reason == link.ReasonSettings)
		}
		clock.Advance(time.Second / 60)
	}
	require.True(t, failed)
	require.NoError(t, host.ep.Err(), "an optional link's failure is only reported")
	require.ErrorIs(t, c0.ep.Err(), rollnet.ErrSyncFailed)
}

// TestEndpointCarriedChecksums: checksums that ride on an owner's own
// messages are compared on both sides; a difference from frame 95 on is
// reported once on each side, naming frame 100 (the first grid frame at or
// after it) and 90 (the newest that agreed).
func TestEndpointCarriedChecksums(t *testing.T) {
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	nw, err := local.NewNetwork(local.Config{Seed: 2, Now: clock.Now})
	require.NoError(t, err)
	require.NoError(t, nw.SetDefaultLink(local.Link{Latency: 30 * time.Millisecond}))
	host := newOwner(t, nw, clock, "host", true, "c0")
	c0 := newOwner(t, nw, clock, "c0", false, "host")
	c0.wrong = 95
	var desyncs [2][]rollnet.Event
	for range 300 {
		for i, o := range []*owner{host, c0} {
			o.tick()
			for _, e := range o.events {
				if e.Kind == rollnet.EventDesyncDetected {
					desyncs[i] = append(desyncs[i], e)
				}
			}
		}
		clock.Advance(time.Second / 60)
	}
	for i, o := range []*owner{host, c0} {
		require.Len(t, desyncs[i], 1, "reported once")
		require.Equal(t, rollnet.Frame(100), desyncs[i][0].Frame)
		require.Equal(t, rollnet.Frame(90), desyncs[i][0].Agreed)
		st := o.ep.Links()[0].Stats()
		require.Greater(t, st.ChecksumsCompared, uint64(20))
		require.Equal(t, uint64(8), st.ChecksumsAgreed, "frames 20 to 90 (10 was the newest before the handshake ended, and only the newest rides)")
	}
}

// A report of a frame waiting for ours is replaced only by one from a
// newer packet: a late or replayed copy, another checksum added, changes
// nothing (issue 28 item 8).
func TestReceivedChecksumOlderPacketKeepsReport(t *testing.T) {
	clock := local.NewClock(time.Unix(0, 0))
	nw, err := local.NewNetwork(local.Config{Now: clock.Now})
	require.NoError(t, err)
	o := newOwner(t, nw, clock, "a", false, "b")
	l := o.ep.Links()[0]
	l.MarkSynchronized()
	own := link.NewChecks(10)
	o.ep.ReceivedChecksum(l, &own, 20, 0xaaaa, 100)
	o.ep.ReceivedChecksum(l, &own, 20, 0xbad, 99)  // an older packet
	o.ep.ReceivedChecksum(l, &own, 20, 0xbad, 100) // a copy of the same one
	o.ep.RecordChecksum(&own, 20, 0xaaaa)
	o.ep.ReceivedChecksum(l, &own, 30, 0xbad, 100)
	o.ep.ReceivedChecksum(l, &own, 30, 0xcccc, 101) // the newer one stands
	o.ep.RecordChecksum(&own, 30, 0xcccc)
	for _, e := range o.ep.Events(nil) {
		require.NotEqual(t, rollnet.EventDesyncDetected, e.Kind, "%+v", e)
	}
	st := l.Stats()
	require.Equal(t, uint64(2), st.ChecksumsCompared)
}
