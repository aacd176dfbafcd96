//go:build !js

package transportfigures

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
)

// cpuTime is the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// drainer receives everything tr gets until stop, counting datagrams.
type drainer struct {
	got  atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func drain(tr transport.Transport) *drainer {
	d := &drainer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		buf := make([]byte, transport.MaxDatagram)
		for {
			select {
			case <-d.stop:
				return
			default:
			}
			if _, _, err := tr.Receive(buf); err == nil {
				d.got.Add(1)
				continue
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	return d
}

func (d *drainer) close() { close(d.stop); <-d.done }

// paced calls send n times at rate per second.
func paced(n, rate int, send func(i int) error) error {
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for i := range n {
		<-tick.C
		if err := send(i); err != nil {
			return err
		}
	}
	return nil
}

// firstDatagram polls tr until a datagram arrives or ctx ends.
func firstDatagram(ctx context.Context, tr transport.Transport) error {
	buf := make([]byte, transport.MaxDatagram)
	for {
		if _, _, err := tr.Receive(buf); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no datagram from the host: %w", ctx.Err())
		case <-time.After(100 * time.Microsecond):
		}
	}
}

// signalServer is a signaling server on loopback.
type signalServer struct {
	srv  *signaling.Server
	http *http.Server
	url  string
	done chan struct{}
}

func startSignaling() (*signalServer, error) {
	// One room holds the host and every client of the CPU figure.
	srv, err := signaling.NewServer(signaling.ServerConfig{MaxRoomSize: 64, Tuning: signaling.ServerTuning{RoomJoinRate: 64, RoomJoinBurst: 64}})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close()
		return nil, err
	}
	s := &signalServer{srv: srv, http: &http.Server{Handler: srv, ReadHeaderTimeout: 5 * time.Second},
		url: "ws://" + ln.Addr().String(), done: make(chan struct{})}
	go func() { defer close(s.done); _ = s.http.Serve(ln) }()
	return s, nil
}

func (s *signalServer) close() {
	_ = s.srv.Close()
	_ = s.http.Close()
	<-s.done
}

var rooms atomic.Int64

func (s *signalServer) room() string { return fmt.Sprintf("%s/room/figures%d", s.url, rooms.Add(1)) }

// The CPU figures' clients run in a child process: ClientsMain is its
// entry point. The bench's host path runs its clients the same way
// (StartChild, ChildMain).

const childEnv = "ROLLNET_TRANSPORTFIGURES_CLIENTS"

// ClientsMain runs the clients of a CPU figure and exits, when this
// process was started as the child of one; otherwise it returns at once.
// Call it first thing in main (or TestMain).
func ClientsMain() { ChildMain(childEnv, "transportfigures clients", runClients) }

// ChildMain runs run with the spec StartChild passed in env and exits
// (1 when run fails, saying what failed), when this process is such a
// child; otherwise it returns at once.
func ChildMain(env, what string, run func(spec string) error) {
	spec := os.Getenv(env)
	if spec == "" {
		return
	}
	if err := run(spec); err != nil {
		fmt.Fprintln(os.Stderr, what+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// Child is a process of clients: this binary started again, whose
// ChildMain runs them. It prints "ready" once every client is connected,
// and ends when its stdin closes.
type Child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	ready chan error
}

// StartChild starts this binary as the clients of spec (in env) and
// returns once it has started.
func StartChild(env, spec string) (*Child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), env+"="+spec)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &Child{cmd: cmd, stdin: stdin, ready: make(chan error, 1)}
	go func() {
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err == nil && strings.TrimSpace(line) != "ready" {
			err = fmt.Errorf("child said %q", line)
		}
		c.ready <- err
		_, _ = io.Copy(io.Discard, stdout)
	}()
	return c, nil
}

// Connected waits for the host's peers (wait) and then for the child to
// say it is ready, within ctx.
func (c *Child) Connected(ctx context.Context, wait func(context.Context) ([]transport.Peer, error)) ([]transport.Peer, error) {
	peers, err := wait(ctx)
	if err != nil {
		return nil, err
	}
	select {
	case err = <-c.ready:
	case <-ctx.Done():
		err = errors.New("the clients never said ready")
	}
	return peers, err
}

// Stop tells the child to end (closing its stdin) and waits for it, 20 s
// at most before it kills it.
func (c *Child) Stop() error {
	_ = c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
		return errors.New("the clients' process did not end within 20 s of its stdin closing")
	}
}

// clientLoop is the child's tick loop: every client sends its input and
// drains what the host sent, until stdin closes (or limit passes).
func clientLoop(trs []transport.Transport, host []transport.Peer, rate, payload int, limit time.Duration) {
	stdinClosed := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	fmt.Println("ready")
	in := make([]byte, payload)
	buf := make([]byte, transport.MaxDatagram)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.After(limit)
	var mu sync.Mutex
	for {
		select {
		case <-stdinClosed:
			return
		case <-end:
			return
		case <-tick.C:
		}
		mu.Lock()
		for i, tr := range trs {
			_ = tr.Send(host[i], in)
			for {
				if _, _, err := tr.Receive(buf); err != nil {
					break
				}
			}
		}
		mu.Unlock()
	}
}

// hostTicks runs the host side of a CPU figure: each tick it drains every
// input and sends each client a state. It returns the host's CPU time
// over ticks ticks, after warm ones.
func hostTicks(tr transport.Transport, peers []transport.Peer, rate, state, warm, ticks int) time.Duration {
	out := make([]byte, state)
	buf := make([]byte, transport.MaxDatagram)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	var start time.Duration
	for i := range warm + ticks {
		<-tick.C
		if i == warm {
			start = cpuTime()
		}
		for {
			if _, _, err := tr.Receive(buf); err != nil {
				break
			}
		}
		for _, p := range peers {
			_ = tr.Send(p, out)
		}
	}
	return cpuTime() - start
}
