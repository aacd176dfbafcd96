package transporttest_test

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/transporttest"
)

// fake is the smallest correct transport: an unbounded in-memory queue per
// endpoint, instant delivery. A flaw, named by the environment variable
// TRANSPORTTEST_FLAW, breaks it in one way so the suite can be seen to
// catch it.
type fake struct {
	net    *fakeNet
	name   transport.Peer
	flaw   string
	queue  []fakeDatagram
	closed bool
	kept   []byte // the last Receive buffer, for the "retain" flaw

	expecting bool
	expected  map[transport.Peer]bool
	anyone    bool // ExpectAnyone was called
}

type fakeDatagram struct {
	from transport.Peer
	b    []byte
}

type fakeNet struct {
	mu    sync.Mutex
	peers map[transport.Peer]*fake
}

func newFakePair(flaw string) (*fake, *fake) {
	n := &fakeNet{peers: map[transport.Peer]*fake{}}
	a := &fake{net: n, name: "a", flaw: flaw}
	b := &fake{net: n, name: "b", flaw: flaw}
	if flaw == "sameidentity" {
		b.name = "a"
	}
	n.peers[a.name] = a
	n.peers[b.name] = b
	return a, b
}

func (f *fake) Local() transport.Peer { return f.name }

func (f *fake) Send(to transport.Peer, b []byte) error {
	f.net.mu.Lock()
	defer f.net.mu.Unlock()
	if f.closed && f.flaw != "sendafterclose" {
		return transport.ErrClosed
	}
	if len(b) > transport.MaxDatagram && f.flaw != "nosizelimit" {
		return transport.ErrTooLarge
	}
	dst, ok := f.net.peers[to]
	if !ok {
		return transport.ErrUnknownPeer
	}
	if dst.closed {
		return transport.ErrPeerGone
	}
	if dst.expecting && !dst.expected[f.name] && f.flaw != "expectignored" {
		return nil
	}
	d := fakeDatagram{from: f.name, b: append([]byte(nil), b...)}
	switch f.flaw {
	case "retainsend":
		d.b = b
	case "wrongsender":
		d.from = to
	case "truncate":
		if len(b) > 1000 {
			d.b = d.b[:1000]
		}
	case "lose":
		if len(dst.queue) >= 10 {
			return nil
		}
	case "duplicate":
		dst.queue = append(dst.queue, d)
	}
	dst.queue = append(dst.queue, d)
	return nil
}

func (f *fake) Receive(buf []byte) (int, transport.Peer, error) {
	f.net.mu.Lock()
	defer f.net.mu.Unlock()
	if f.closed {
		return 0, "", transport.ErrClosed
	}
	if f.flaw == "retainreceive" && f.kept != nil && len(f.queue) > 0 {
		copy(f.kept, f.queue[0].b)
	}
	if len(f.queue) == 0 {
		return 0, "", transport.ErrNoPacket
	}
	d := f.queue[0]
	if len(d.b) > len(buf) {
		if f.flaw != "shortkeeps" {
			f.queue = f.queue[1:]
		}
		return 0, d.from, transport.ErrShortBuffer
	}
	f.queue = f.queue[1:]
	f.kept = buf
	return copy(buf, d.b), d.from, nil
}

func (f *fake) Close() error {
	f.net.mu.Lock()
	defer f.net.mu.Unlock()
	if f.closed && f.flaw == "doubleclose" {
		return transport.ErrClosed
	}
	f.closed = true
	f.queue = nil
	return nil
}

// Expect implements transport.Expecter.
func (f *fake) Expect(peers ...transport.Peer) {
	f.net.mu.Lock()
	defer f.net.mu.Unlock()
	if f.anyone && f.flaw == "anyonesticks" {
		return // a later Expect no longer closes the gate
	}
	f.expecting, f.expected = true, map[transport.Peer]bool{}
	for _, p := range peers {
		f.expected[p] = true
	}
	if f.flaw == "expectkeepsqueued" {
		return
	}
	kept := f.queue[:0]
	for _, d := range f.queue {
		if f.expected[d.from] {
			kept = append(kept, d)
		}
	}
	f.queue = kept
}

// ExpectAnyone implements transport.Expecter.
func (f *fake) ExpectAnyone() {
	f.net.mu.Lock()
	defer f.net.mu.Unlock()
	if f.flaw == "anyonestaysclosed" {
		return
	}
	f.anyone = true
	f.expecting, f.expected = false, nil
}

func fakePair(flaw string, lossy bool) func(t *testing.T) transporttest.Pair {
	return func(t *testing.T) transporttest.Pair {
		a, b := newFakePair(flaw)
		t.Cleanup(func() { _ = a.Close(); _ = b.Close() })
		return transporttest.Pair{A: a, B: b, Tick: func() {}, Patience: 3, Lossy: lossy}
	}
}

func TestConformanceOfFake(t *testing.T) {
	flaw := os.Getenv("TRANSPORTTEST_FLAW")
	if flaw != "" {
		// Running as the child of TestSuiteCatchesFlaws: run the suite on the
		// broken fake and let it fail.
		transporttest.Run(t, fakePair(flaw, os.Getenv("TRANSPORTTEST_LOSSY") != ""))
		return
	}
	t.Run("Quiet", func(t *testing.T) { transporttest.Run(t, fakePair("", false)) })
	t.Run("Lossy", func(t *testing.T) { transporttest.Run(t, fakePair("", true)) })
}

// TestSuiteCatchesFlaws runs the suite, in a child process, against fakes
// broken in one way each, and expects it to fail naming the check that
// catches the flaw.
func TestSuiteCatchesFlaws(t *testing.T) {
	if os.Getenv("TRANSPORTTEST_FLAW") != "" {
		t.Skip("child process")
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	cases := []struct {
		flaw, lossy, check string
	}{
		{"sameidentity", "", "Identity"},
		{"retainsend", "", "SendDoesNotRetain"},
		{"retainsend", "1", "SendDoesNotRetain"},
		{"retainreceive", "", "ReceiveDoesNotRetain"},
		{"wrongsender", "", "RoundTrip"},
		{"wrongsender", "1", "Burst"},
		{"truncate", "", "MaxDatagram"},
		{"truncate", "1", "Burst"},
		{"nosizelimit", "", "TooLarge"},
		{"shortkeeps", "", "ShortBuffer"},
		{"lose", "", "Burst"},
		{"duplicate", "", "Burst"},
		{"sendafterclose", "", "Close"},
		{"doubleclose", "", "Close"},
		{"expectignored", "", "Expect"},
		{"expectignored", "1", "Expect"},
		{"expectkeepsqueued", "", "Expect"},
		{"anyonestaysclosed", "", "Expect"},
		{"anyonestaysclosed", "1", "Expect"},
		{"anyonesticks", "", "Expect"},
	}
	for _, c := range cases {
		t.Run(c.flaw+c.lossy, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestConformanceOfFake$", "-test.v")
			cmd.Env = append(os.Environ(), "TRANSPORTTEST_FLAW="+c.flaw, "TRANSPORTTEST_LOSSY="+c.lossy)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the suite passed a fake with flaw %q:\n%s", c.flaw, out)
			require.True(t, strings.Contains(string(out), "--- FAIL: TestConformanceOfFake/"+c.check),
				"flaw %q not caught by %s:\n%s", c.flaw, c.check, out)
		})
	}
}
