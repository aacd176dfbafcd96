package main

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// profile is one of the link profiles the P2P session is held to: one-way
// latency, jitter and loss on each direction.
type profile struct {
	name    string
	latency time.Duration
	jitter  time.Duration
	loss    float64
}

var profiles = []profile{
	{"40ms+-6ms_0.2%", 40 * time.Millisecond, 6 * time.Millisecond, 0.002},
	{"100ms+-15ms_2%", 100 * time.Millisecond, 15 * time.Millisecond, 0.02},
	{"200ms+-30ms_10%", 200 * time.Millisecond, 30 * time.Millisecond, 0.10},
}

// BenchmarkP2PProfile plays two peers at 60 frames per second over the
// local network on a fake clock, one op per tick of both, and reports what
// a player would feel: rollbacks per second, the deepest rollback, how many
// frames the simulation runs ahead of what is confirmed, the bytes per
// second each peer sends, and whether every frame compared agreed (1) or
// not (0). The inputs change every 10 frames or so, like a player's.
func BenchmarkP2PProfile(b *testing.B) {
	for _, pr := range profiles {
		b.Run(pr.name, func(b *testing.B) {
			const fps = 60
			clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			network, err := local.NewNetwork(local.Config{Seed: 7, Now: clock.Now, Link: local.Link{
				Latency: pr.latency, Jitter: pr.jitter, Loss: pr.loss,
			}})
			if err != nil {
				b.Fatal(err)
			}
			names := []transport.Peer{"a", "b"}
			peers := make([]*p2p.Session[world, uint16], 2)
			for i := range peers {
				ep, err := network.Endpoint(string(names[i]))
				if err != nil {
					b.Fatal(err)
				}
				remote := []transport.Peer{"", ""}
				remote[1-i] = names[1-i]
				nonce := uint64(i)
				peers[i], err = p2p.New[world](p2p.Config[uint16]{
					Session: session.Config[uint16]{Players: 2, InputDelay: 2, Capacity: 32},
					Remote:  remote,
					Net: rollnet.NetConfig{
						FrameRate: fps,
						Now:       clock.Now,
						Tuning:    rollnet.NetTuning{Rand: func() uint64 { nonce += 2; return nonce }},
					},
				}, ep, simulate)
				if err != nil {
					b.Fatal(err)
				}
			}

			var (
				events   []rollnet.Event
				rng      = uint64(0x9e3779b97f4a7c15)
				input    [2]uint16
				ahead    int
				frames   int
				compared int
				agree    = true
			)
			tick := func() {
				for i, p := range peers {
					if p.WaitRecommendation() > 0 {
						_ = p.Poll()
						continue
					}
					rng ^= rng << 13
					rng ^= rng >> 7
					rng ^= rng << 17
					if rng%10 == 0 {
						input[i] = uint16(rng >> 32)
					}
					_ = p.AddLocalInput(i, input[i])
					if p.AdvanceFrame() == nil {
						ahead += int(p.Frame() - 1 - p.ConfirmedFrame())
						frames++
					}
					events = p.Events(events[:0])
					for _, e := range events {
						if e.Kind == rollnet.EventDesyncDetected {
							agree = false
						}
					}
				}
				f := min(peers[0].ConfirmedFrame(), peers[1].ConfirmedFrame(), peers[0].Frame()-1, peers[1].Frame()-1)
				if f >= 0 {
					x, errX := peers[0].ChecksumAt(f)
					y, errY := peers[1].ChecksumAt(f)
					if errX == nil && errY == nil {
						compared++
						agree = agree && x == y
					}
				}
				clock.Advance(time.Second / fps)
			}
			// The handshake, untimed: the local network allocates each
			// direction's queue at its first datagram, which is the
			// harness's own cost, not the session's (it was the 824 B and 5
			// allocations per op that -benchtime 1x reported).
			for !peers[0].Running() || !peers[1].Running() {
				tick()
			}
			events = make([]rollnet.Event, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				tick()
			}
			if frames == 0 || compared == 0 {
				return // too few ticks to have started (-benchtime 1x)
			}
			seconds := float64(peers[0].Frame()) / fps
			st := peers[0].Stats()
			ps, err := peers[0].PeerStats(names[1])
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(st.Rollbacks)/seconds, "rollbacks/s")
			b.ReportMetric(float64(st.MaxRollbackDepth), "deepest")
			b.ReportMetric(float64(ahead)/float64(frames), "frames-ahead")
			b.ReportMetric(float64(ps.BytesSent)/seconds, "B/s/peer")
			b.ReportMetric(boolMetric(agree), "agree")
			if !agree {
				b.Errorf("peers disagreed on a confirmed frame's checksum over %s", pr.name)
			}
		})
	}
}

func boolMetric(v bool) float64 {
	if v {
		return 1
	}
	return 0
}
