//go:build linux

package netlab_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/rollnet/rollnet/internal/netlab"
)

// gate is the environment variable that runs the lab's tests (.ci/run's
// netlab step sets it): they start real processes in namespaces for a
// minute or two, which `go test ./...` should not do on every laptop.
const gate = "ROLLNET_NETLAB"

// binaries are the project's commands, built once for every test.
var binaries struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.dir != "" {
		_ = os.RemoveAll(binaries.dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// lab is a new lab for t, or t skipped when the gate is closed (or failed,
// under CI=true, when the lab cannot run here).
func lab(t *testing.T) *netlab.Lab {
	t.Helper()
	if os.Getenv(gate) == "" {
		t.Skipf("set %s=1 to run the network lab's tests (root and nftables; .ci/run does)", gate)
	}
	return netlab.New(t)
}

// bin is the path of the command name (pong or rollnet-signal), built once.
func bin(t *testing.T, name string) string {
	t.Helper()
	binaries.once.Do(func() {
		sweepBinaries(t)
		binaries.dir, binaries.err = os.MkdirTemp("", fmt.Sprintf("netlab-bin-%d-", os.Getpid()))
		if binaries.err != nil {
			return
		}
		gomod, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			binaries.err = err
			return
		}
		cmd := exec.Command("go", "build", "-o", binaries.dir+string(filepath.Separator), "./demo/pong", "./signaling/cmd/rollnet-signal")
		cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
		if out, err := cmd.CombinedOutput(); err != nil {
			binaries.err = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	require.NoError(t, binaries.err)
	return filepath.Join(binaries.dir, name)
}

// sweepBinaries removes the binaries of test processes that are gone
// (killed before TestMain removed them).
func sweepBinaries(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "netlab-bin-*-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.Split(filepath.Base(d), "-")[2])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		t.Logf("netlab: removing %s, left by process %d", d, pid)
		_ = os.RemoveAll(d)
	}
}

// proc is a process running in a lab host, its output kept by line.
type proc struct {
	name  string
	cmd   *exec.Cmd
	start time.Time

	mu    sync.Mutex
	out   bytes.Buffer
	lines []line
	added chan struct{} // closed and replaced at each new line
	done  chan struct{} // closed when the process exited and its output is read
	code  int
}

type line struct {
	at   time.Duration // since start
	text string
}

// start runs name (a built command) with args in h, killed at the end of
// t if still running.
func start(t *testing.T, h *netlab.Host, label, name string, env []string, args ...string) *proc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &proc{name: label, cmd: h.Command(ctx, bin(t, name), args...), added: make(chan struct{}), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), env...)
	r, w := io.Pipe()
	p.cmd.Stdout, p.cmd.Stderr = w, w
	p.cmd.Stdin = nil
	p.start = time.Now()
	require.NoError(t, p.cmd.Start())
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			p.mu.Lock()
			p.out.WriteString(sc.Text() + "\n")
			p.lines = append(p.lines, line{time.Since(p.start), sc.Text()})
			close(p.added)
			p.added = make(chan struct{})
			p.mu.Unlock()
		}
		_, _ = io.Copy(io.Discard, r)
	}()
	go func() {
		err := p.cmd.Wait()
		_ = w.Close()
		<-scanned
		p.mu.Lock()
		p.code = p.cmd.ProcessState.ExitCode()
		if err != nil && p.code == 0 {
			p.code = -1
		}
		p.mu.Unlock()
		close(p.done)
	}()
	t.Cleanup(func() {
		cancel()
		<-p.done
	})
	return p
}

// waitFor waits up to d for a line of p's matching re and returns its
// submatches and when it came (since p started).
func (p *proc) waitFor(t *testing.T, re *regexp.Regexp, d time.Duration) ([]string, time.Duration) {
	t.Helper()
	deadline := time.After(d)
	seen := 0
	for {
		p.mu.Lock()
		for ; seen < len(p.lines); seen++ {
			if m := re.FindStringSubmatch(p.lines[seen].text); m != nil {
				at := p.lines[seen].at
				p.mu.Unlock()
				return m, at
			}
		}
		added := p.added
		p.mu.Unlock()
		select {
		case <-added:
		case <-p.done:
			p.mu.Lock()
			n := len(p.lines)
			p.mu.Unlock()
			if seen == n {
				t.Fatalf("%s exited (status %d) before printing a line matching %q:\n%s", p.name, p.exitCode(), re, p.output())
			}
		case <-deadline:
			t.Fatalf("%s printed no line matching %q within %v:\n%s", p.name, re, d, p.output())
		}
	}
}

// wait waits up to d for p to exit and returns its output and status.
func (p *proc) wait(t *testing.T, d time.Duration) (string, int) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		t.Fatalf("%s still runs after %v:\n%s", p.name, d, p.output())
	}
	return p.output(), p.exitCode()
}

// kill ends p at once (SIGKILL: it says nothing to anyone).
func (p *proc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	p.wait(t, 10*time.Second)
}

// output is what p printed so far.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

func (p *proc) exitCode() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.code
}

// signal is rollnet-signal on a host of the public segment, with its TURN
// relay (UDP and TCP on port 3478, which also answers STUN) handed out to
// every client, and its metrics.
type signal struct {
	host *netlab.Host
	p    *proc
	url  string // ws://ADDR:8080
}

func startSignal(t *testing.T, l *netlab.Lab) *signal {
	t.Helper()
	h := l.Public("signal")
	a := h.Addr().String()
	p := start(t, h, "rollnet-signal", "rollnet-signal", []string{"ROLLNET_TURN_SECRET=netlab"},
		"-addr", a+":8080", "-turn-listen", a+":3478", "-stun", "stun:"+a+":3478", "-metrics", a+":9090",
		"-max-conns-per-addr", "64", "-join-burst", "64")
	p.waitFor(t, regexp.MustCompile(`rollnet-signal listening`), 20*time.Second)
	return &signal{host: h, p: p, url: "ws://" + a + ":8080"}
}

// metrics is the signal server's Prometheus text, fetched from inside its
// own namespace.
func (s *signal) metrics(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := s.host.Command(ctx, "curl", "-sf", "http://"+s.host.Addr().String()+":9090/metrics").Output()
	require.NoError(t, err, "curl the metrics")
	return string(out)
}

// pathLine is the pong report's path line.
var pathLine = regexp.MustCompile(`(?m)^  path +(\w+) over (UDP|TCP|\?) \((\w+) to (\w+)\), open (\S+) after joining$`)

// path is what a pong report says of its selected pair.
type path struct {
	Kind     string // direct, stun, relay
	Protocol string // UDP, TCP
	Local    string // candidate types
	Remote   string
	Open     time.Duration // from joining to the data channels open
}

func (p path) String() string {
	return fmt.Sprintf("%s over %s (%s to %s)", p.Kind, p.Protocol, p.Local, p.Remote)
}

func parsePath(t *testing.T, who, out string) path {
	t.Helper()
	m := pathLine.FindStringSubmatch(out)
	require.NotNil(t, m, "%s's report names no path:\n%s", who, out)
	d, err := time.ParseDuration(m[5])
	require.NoError(t, err)
	return path{m[1], m[2], m[3], m[4], d}
}

// pong starts a pong player in h.
func pong(t *testing.T, h *netlab.Host, name string, args ...string) *proc {
	t.Helper()
	return start(t, h, name, "pong", nil, append([]string{"-headless", "-name", name}, args...)...)
}

// played checks a finished pong report: result ok, and checksums
// compared and agreeing (an authoritative host compares none: its clients
// check its states, and say so in theirs).
func played(t *testing.T, who, out string, status int) {
	t.Helper()
	require.Equal(t, 0, status, "%s's exit status:\n%s", who, out)
	require.Contains(t, out, "result              ok", who)
	if strings.Contains(out, "pong report (left, host)") {
		require.Contains(t, out, "states checked      by its clients", who)
		return
	}
	require.Contains(t, out, "(checksums agree)", who)
	require.NotContains(t, out, "nothing compared", who)
}

// joinToMatch is the time from p's joining its room to its match's first
// frame: its "in room" line to its "match started" line.
func (p *proc) joinToMatch(t *testing.T) time.Duration {
	t.Helper()
	_, in := p.waitFor(t, regexp.MustCompile(`^pong: in room`), time.Second)
	_, started := p.waitFor(t, regexp.MustCompile(`^pong: match started`), time.Second)
	return (started - in).Round(time.Millisecond)
}
