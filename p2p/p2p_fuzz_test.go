package p2p

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
)

// scriptTransport delivers scripted packets from one peer and swallows
// whatever is sent.
type scriptTransport struct {
	pkts  [][]byte
	from  transport.Peer
	local transport.Peer
}

func (s *scriptTransport) Local() transport.Peer             { return s.local }
func (s *scriptTransport) Send(transport.Peer, []byte) error { return nil }
func (s *scriptTransport) Close() error                      { return nil }
func (s *scriptTransport) Receive(buf []byte) (int, transport.Peer, error) {
	if len(s.pkts) == 0 {
		return 0, "", transport.ErrNoPacket
	}
	b := s.pkts[0]
	s.pkts = s.pkts[1:]
	if len(b) > len(buf) {
		return 0, "", transport.ErrShortBuffer
	}
	return copy(buf, b), s.from, nil
}

func fuzzSeeds(f *testing.F) {
	sr := wire.SyncRequest{Seq: 1, Nonce: 7, Protocol: protocolVersion}
	f.Add(sr.Append(nil))
	sp := wire.SyncReply{Seq: 2, Nonce: 7, Protocol: protocolVersion}
	f.Add(sp.Append(nil))
	in := wire.Input{Seq: 3, Ack: 1, Start: 2, Frames: 2, Players: 2, Size: 2, Inputs: []byte{1, 0, 1, 0}}
	f.Add(in.Append(nil))
	in = wire.Input{Seq: 3, Ack: 1, Start: 2, Frames: 1, Players: 6, Size: 2, Inputs: []byte{1, 0, 1, 0},
		Status: []wire.PeerStatus{{Connected: true, LastFrame: 3}, {LastFrame: 2}, {Connected: true, LastFrame: 5}}}
	f.Add(in.Append(nil))
	all := wire.Input{Seq: 3, Ack: -1, Start: 2, Frames: 1, Players: 7, Size: 2, Inputs: make([]byte, 6)}
	f.Add(all.Append(nil))
	// The bulk feed's: frames ahead of what arrived, Ack the host's newest
	// confirmed frame.
	bulk := wire.Input{Seq: 3, Ack: 9000, Start: 130, Frames: wire.MaxFrames, Players: 7, Size: 2,
		Inputs: make([]byte, wire.MaxFrames*6)}
	f.Add(bulk.Append(nil))
	ack := wire.InputAck{Seq: 4, Ack: 3}
	f.Add(ack.Append(nil))
	in = wire.Input{Seq: 3, Ack: 1, Start: 2, Frames: 1, Players: 2, Size: 2, Inputs: []byte{1, 0},
		HasChecksum: true, CheckFrame: 2, Checksum: 5}
	f.Add(in.Append(nil))
	ack = wire.InputAck{Seq: 4, Ack: 3, HasChecksum: true, CheckFrame: 2, Checksum: 5}
	f.Add(ack.Append(nil))
	q := wire.QualityReport{Seq: 5, FrameAdvantage: -3, Ping: 99}
	f.Add(q.Append(nil))
	r := wire.QualityReply{Seq: 6, Pong: 1}
	f.Add(r.Append(nil))
	k := wire.KeepAlive{Seq: 7}
	f.Add(k.Append(nil))
	c := wire.Checksum{Seq: 8, Frame: 60, Checksum: 5}
	f.Add(c.Append(nil))
	d := wire.Disconnect{Seq: 9}
	f.Add(d.Append(nil))
	rejoinSeeds(f)
	// The desync repair's (protocol 6).
	f.Add((&wire.Repair{Seq: 10, Kind: wire.RepairAsk, Frame: 2}).Append(nil))
	f.Add((&wire.Repair{Seq: 11, Kind: wire.RepairPart, Frame: 2, Sum: 9, Size: 40, Part: 0, Data: make([]byte, 40)}).Append(nil))
	f.Add((&wire.Repair{Seq: 12, Kind: wire.RepairAck, Frame: 2, Part: 0, Sum: 1}).Append(nil))
}

// FuzzP2PPacket feeds arbitrary packets from a known peer to a running
// three-player session (and a spectator link): never a panic, never more
// than the window.
func FuzzP2PPacket(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &scriptTransport{from: "p1", local: "p0"}
		clock := p2pEpoch
		p, err := New[p2pWorld](Config[uint16]{
			Session:    session.Config[uint16]{Players: 3, InputDelay: 1, Capacity: 16},
			Remote:     []transport.Peer{"", "p1", "p2"},
			Spectators: []transport.Peer{"s0"},
			Net:        rollnet.NetConfig{Now: func() time.Time { return clock }, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}, ChecksumInterval: 2},
		}, tr, simP2P)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 3 {
			if round == 1 {
				for _, l := range p.ep.Links() {
					l.MarkSynchronized()
				}
			}
			tr.pkts = [][]byte{b, b[:len(b)/2], b}
			_ = p.AddLocalInput(0, uint16(round))
			_ = p.AdvanceFrame()
			_ = p.Poll()
			clock = clock.Add(time.Second / 60)
		}
		tr.from = "s0"
		tr.pkts = [][]byte{b}
		_ = p.Poll()
		for pl := range 3 {
			if p.recv[pl] > p.core.Frame()+rollnet.Frame(p.delay+p.maxPred) {
				t.Fatalf("player %d heard up to %d, past the window", pl, p.recv[pl])
			}
		}
	})
}

// FuzzSpectatorPacket does the same to a spectator.
func FuzzSpectatorPacket(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &scriptTransport{from: "p0", local: "s0"}
		clock := p2pEpoch
		s, err := NewSpectator[p2pWorld, uint16](SpectatorConfig{Players: 3, InputDelay: 1, Host: "p0",
			Net: rollnet.NetConfig{Now: func() time.Time { return clock }, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}, ChecksumInterval: 2}}, tr, simP2P)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 3 {
			if round == 1 {
				s.host.MarkSynchronized()
			}
			tr.pkts = [][]byte{b, b[:len(b)/2], b}
			_ = s.AdvanceFrame()
			clock = clock.Add(time.Second / 60)
			if s.recv > s.core.Frame()+rollnet.Frame(s.hist.mask) {
				t.Fatalf("heard up to %d at frame %d, past its buffer", s.recv, s.core.Frame())
			}
		}
	})
}
