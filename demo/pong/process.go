package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// opponent is the second process of the demo: a copy of this program
// started with flags that make it the other player. Its stdin is a pipe
// the parent holds open, so it exits when the parent does, whatever way
// the parent ends; on Linux the kernel also kills it if the parent dies
// (see process_linux.go).
type opponent struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *lockedBuffer // its output while the parent's screen is up
	live   *prefixWriter // its output as it comes, when streaming
	done   chan struct{}
	err    error
	prefix string
}

// lockedBuffer is a bytes.Buffer safe for the child's output copier and
// the parent's reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startProcess starts this executable again with args. When stream is
// set its output goes to w line by line, with prefix; otherwise it is kept
// until flush (so it does not scribble over the parent's terminal view).
func startProcess(args []string, w io.Writer, stream bool, prefix string) (*opponent, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("pong: finding this program to start the opponent: %w", err)
	}
	cmd := exec.Command(exe, args...)
	setParentDeath(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	o := &opponent{cmd: cmd, stdin: stdin, done: make(chan struct{}), prefix: prefix}
	var sink io.Writer
	if stream {
		o.live = &prefixWriter{prefix: prefix, w: w}
		sink = o.live
	} else {
		o.out = &lockedBuffer{}
		sink = o.out
	}
	cmd.Stdout, cmd.Stderr = sink, sink
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pong: starting the opponent: %w", err)
	}
	go func() {
		o.err = cmd.Wait()
		close(o.done)
	}()
	return o, nil
}

// finish waits up to grace for the opponent to end on its own, then
// closes its stdin (its signal to stop), and kills it if it still runs.
// It returns the opponent's exit status.
func (o *opponent) finish(grace time.Duration) int {
	select {
	case <-o.done:
	case <-time.After(grace):
		_ = o.stdin.Close()
		select {
		case <-o.done:
		case <-time.After(3 * time.Second):
			_ = o.cmd.Process.Kill()
			<-o.done
		}
	}
	_ = o.stdin.Close()
	if o.cmd.ProcessState == nil {
		return -1
	}
	return o.cmd.ProcessState.ExitCode()
}

// reap finishes the player process (see finish, with grace), writes its
// kept output to w and folds its exit status into status, ours: when we
// succeeded and it did not, its status becomes ours (a process that died
// without one counts as a failure), with a line naming it as who.
func (o *opponent) reap(grace time.Duration, status int, who string, w io.Writer) int {
	st := o.finish(grace)
	o.flush(w)
	if st != 0 {
		fmt.Fprintf(w, "pong: %s process ended: %v\n", who, o.cmd.ProcessState)
	}
	if status != exitOK || st == 0 {
		return status
	}
	if st < 0 {
		return exitFailure
	}
	return st
}

// flush writes the opponent's kept output to w, each line prefixed.
func (o *opponent) flush(w io.Writer) {
	if o.live != nil {
		o.live.flush()
		return
	}
	p := &prefixWriter{prefix: o.prefix, w: w}
	_, _ = io.WriteString(p, o.out.String())
	p.flush()
}

// syncWriter serialises writes from the child's output copiers and the
// parent.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
