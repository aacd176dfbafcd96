//go:build !js

package netplay_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/netplay"
	"github.com/rollnet/rollnet/transport/quic"
)

// entityClientEnv, when set, makes the test binary an entity match's
// client in its own process (entityClientProcess): "webrtc SIGNAL ROOM"
// or "quic URL PIN" (the host certificate's quic.FormatHash).
const entityClientEnv = "NETPLAY_ENTITY_CLIENT"

func init() { processRoles[entityClientEnv] = entityClientProcess }

// entityClientProcess connects to the host its environment names, plays
// pressing +1 at 60 ticks a second, and succeeds once it has compared 60
// of its predictions with the host's (nine in ten agreeing) while holding
// the entities near it; it gives up after 20 s.
func entityClientProcess(spec string) int {
	f := strings.Fields(spec)
	cfg := netplay.Config{Players: 2, Name: "proc", Timeout: 15 * time.Second}
	opt := netplay.Entities(crowdEntities())
	var m *netplay.Match[Crowd, Buttons]
	var err error
	switch {
	case len(f) == 3 && f[0] == "webrtc":
		cfg.Signal, cfg.Room = f[1], f[2]
		m, err = netplay.Connect(cfg, crowdSimulate, opt)
	case len(f) == 3 && f[0] == "quic":
		var pin [32]byte
		if pin, err = quic.ParseHash(f[2]); err == nil {
			cfg.QUIC = netplay.QUICHost{URL: f[1], PinSHA256: pin}
			m, err = netplay.Connect(cfg, crowdSimulate, opt)
		}
	default:
		err = fmt.Errorf("bad %s %q", entityClientEnv, spec)
	}
	if err != nil {
		fmt.Println("entity client:", err)
		return 1
	}
	defer m.Close()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); <-tick.C {
		st, err := m.AdvanceFrame(1)
		if err != nil {
			fmt.Println("entity client:", err)
			return 1
		}
		s := m.Stats()
		held := 0
		if w := m.State(); w != nil {
			for _, sl := range w.Slots {
				if sl.Live {
					held++
				}
			}
		}
		if st.Phase == netplay.Running && s.Compared >= 60 && s.Agreed >= s.Compared*9/10 && held > 5 {
			fmt.Printf("entity client: slot %d, %d of %d predictions agreed, %d entities held, %d B received\n", m.Seat(), s.Agreed, s.Compared, held, s.BytesReceived)
			return 0
		}
	}
	fmt.Println("entity client: gave up after 20 s; status:", m.Stats())
	return 1
}

// runEntityHost hosts an entity match (dedicated, two slots) on cfg while
// this test binary, run again as a client with spec, plays it; the client
// must succeed, and its avatar must have moved on the host.
func runEntityHost(t *testing.T, cfg netplay.Config, spec string) {
	t.Helper()
	cfg.Players, cfg.Name = 2, "host"
	h, err := netplay.Host(cfg, crowdSimulate, netplay.Entities(crowdEntities()))
	require.NoError(t, err)
	defer h.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), entityClientEnv+"="+spec)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			t.Log(strings.TrimSpace(out.String()))
			require.NoError(t, err, "the client process: %s", out.String())
			require.Greater(t, h.State().Mobs[0].X, int32(1000+crowdSpeed*30), "the client's inputs moved its avatar on the host")
			return
		case <-tick.C:
			if _, err := h.AdvanceFrame(0); err != nil {
				_ = cmd.Process.Kill()
				<-done
				require.NoError(t, err, "the host; the client said: %s", out.String())
			}
		}
	}
}

// TestEntityProcessesOverWebRTC: an entity match between two processes
// over WebRTC, through a signaling server.
func TestEntityProcessesOverWebRTC(t *testing.T) {
	signal, stop := startSignal()
	defer stop()
	runEntityHost(t, netplay.Config{Signal: signal, Room: "crowd", Timeout: 15 * time.Second}, "webrtc "+signal+" crowd")
}

// TestEntityProcessesOverQUIC: the same over QUIC, the client dialing the
// host directly with its certificate pinned.
func TestEntityProcessesOverQUIC(t *testing.T) {
	qt, err := quic.Listen("127.0.0.1:0", quic.Config{})
	require.NoError(t, err)
	runEntityHost(t, netplay.Config{Transport: qt}, "quic quic://"+qt.Addr().String()+" "+quic.FormatHash(qt.CertHash()))
}
