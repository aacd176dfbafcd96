package signaling

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/signaling/client"
)

var (
	loadClients = flag.Int("signal.clients", 200,
		"clients in TestLoad, two per room (the issue's load is 1000)")
	loadExternal = flag.Bool("signal.external", false,
		"TestLoad runs the server as the rollnet-signal command in its own process and reports its resident memory")
)

// TestLoad holds -signal.clients concurrent clients on loopback, two per
// room, each pair exchanging an offer, an answer and two candidates each
// way, and reports the time until every pair has everything and the
// server's memory with all of them connected.
//
//	go test ./signaling -run TestLoad -v -signal.clients=1000
//	go test ./signaling -run TestLoad -v -signal.clients=1000 -signal.external
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped with -short")
	}
	n := *loadClients
	require.True(t, n >= 2 && n%2 == 0, "-signal.clients must be even")

	var base string
	var rss func() string
	if *loadExternal {
		base, rss = startExternal(t, n)
	} else {
		h := start(t, ServerConfig{Tuning: ServerTuning{MaxConnsPerAddr: n, MaxConns: n}})
		base = h.url("")
		rss = func() string { return inProcessMemory() }
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type result struct {
		c      *client.Client
		paired time.Duration // since the start, when this client had all it waits for
		err    error
	}
	results := make([]result, n)
	begin := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pairOnce(ctx, fmt.Sprintf("%s/room/load-%d", base, i/2))
			results[i] = result{c, time.Since(begin), err}
		}()
	}
	wg.Wait()
	all := time.Since(begin)
	var times []time.Duration
	for _, r := range results {
		require.NoError(t, r.err)
		times = append(times, r.paired)
	}
	slices.Sort(times)
	mem := rss()
	t.Logf("%d clients in %d rooms on loopback: all paired in %v (per client: p50 %v, p99 %v); server memory with all connected: %s; %s",
		n, n/2, all.Round(time.Millisecond), times[len(times)/2].Round(time.Millisecond),
		times[len(times)*99/100].Round(time.Millisecond), mem, runtime.Version())
	for _, r := range results {
		require.NoError(t, r.c.Close())
	}
}

// pairOnce joins url and completes one exchange: the first in the room
// offers and sends two candidates; the second answers and sends two. It
// returns once this client has received all it waits for.
func pairOnce(ctx context.Context, url string) (*client.Client, error) {
	c, err := client.Dial(ctx, url, client.Config{})
	if err != nil {
		return nil, err
	}
	payload := json.RawMessage(`{"sdp":"v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"}`)
	cand := json.RawMessage(`{"candidate":"candidate:1 1 udp 2130706431 127.0.0.1 50000 typ host","sdpMid":"0"}`)
	sendAll := func(peer string, kind client.SignalKind) error {
		for _, s := range []client.Signal{{Kind: kind, Payload: payload}, {Kind: client.SignalCandidate, Payload: cand}, {Kind: client.SignalCandidate, Payload: cand}} {
			if err := c.Send(ctx, peer, s); err != nil {
				return err
			}
		}
		return nil
	}
	recv := func(want int) (string, error) {
		var peer string
		for got := 0; got < want; {
			select {
			case ev, ok := <-c.Events():
				if !ok {
					return "", fmt.Errorf("events closed: %w", c.Err())
				}
				switch ev.Kind {
				case client.PeerJoined:
					peer = ev.Peer
					got++
				case client.SignalReceived:
					peer = ev.Peer
					got++
				default:
					return "", fmt.Errorf("unexpected %v", ev.Kind)
				}
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return peer, nil
	}
	if len(c.Peers()) == 0 { // first: wait for the other, offer, take the answer
		peer, err := recv(1)
		if err == nil {
			err = sendAll(peer, client.SignalOffer)
		}
		if err == nil {
			_, err = recv(3)
		}
		return c, err
	}
	peer := c.Peers()[0]
	_, err = recv(3)
	if err == nil {
		err = sendAll(peer, client.SignalAnswer)
	}
	return c, err
}

func inProcessMemory() string {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fmt.Sprintf("in-process (clients and server together): heap in use %.1f MiB, %d goroutines",
		float64(m.HeapInuse)/(1<<20), runtime.NumGoroutine())
}

// startExternal builds and starts the command, and returns its base URL
// and a function reading its resident memory.
func startExternal(t *testing.T, n int) (string, func() string) {
	return runCommand(t, buildCommand(t), "-max-conns-per-addr", fmt.Sprint(n), "-max-conns", fmt.Sprint(n))
}

// buildCommand builds rollnet-signal for the test.
func buildCommand(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "rollnet-signal")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/rollnet-signal").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

// runCommand starts bin on a loopback port with args until the test ends,
// and returns its base URL and a function reading its resident memory.
func runCommand(t *testing.T, bin string, args ...string) (string, func() string) {
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	addrRE := regexp.MustCompile(`addr=(\S+)`)
	sc := bufio.NewScanner(stderr)
	var addr string
	for sc.Scan() {
		if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	require.NotEmpty(t, addr, "the command did not say where it listens")
	go func() { // keep draining its logs
		for sc.Scan() {
		}
	}()
	return "ws://" + addr, func() string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			return "unknown (" + err.Error() + ")"
		}
		var fields []string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "VmRSS:") || strings.HasPrefix(line, "VmHWM:") || strings.HasPrefix(line, "Threads:") {
				fields = append(fields, strings.Join(strings.Fields(line), " "))
			}
		}
		return "separate process: " + strings.Join(fields, ", ")
	}
}
