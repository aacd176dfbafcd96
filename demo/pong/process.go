package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// opponent is a copy of this program playing the other side. Its stdin
// is a pipe the parent holds open, so it exits with the parent, however
// that ends (on Linux the kernel also kills it: process_linux.go).
type opponent struct {
	cmd  *exec.Cmd
	stop func()        // closes its stdin, its signal to stop; it is killed 3 s later
	out  *prefixWriter // its output, each line prefixed
	kept *syncWriter   // where out writes while the parent's screen is up
	done chan struct{} // closed once it exited
}

// startProcess starts this executable with args; its output goes to w
// line by line with prefix when stream is set, else it is kept until reap.
func startProcess(args []string, w io.Writer, stream bool, prefix string) (*opponent, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("pong: finding this program to start the opponent: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, exe, args...)
	setParentDeath(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		stop()
		return nil, err
	}
	cmd.Cancel, cmd.WaitDelay = stdin.Close, 3*time.Second
	o := &opponent{cmd: cmd, stop: stop, done: make(chan struct{}), out: &prefixWriter{prefix: prefix, w: w}}
	if !stream {
		o.kept = &syncWriter{}
		o.out.w = o.kept
	}
	cmd.Stdout, cmd.Stderr = o.out, o.out // one writer: exec calls it from one goroutine
	if err := cmd.Start(); err != nil {
		stop()
		return nil, fmt.Errorf("pong: starting the opponent: %w", err)
	}
	go func() {
		_ = cmd.Wait()
		close(o.done)
	}()
	return o, nil
}

// reap waits up to grace for the process to end, then stops it, writes
// its remaining output to w and folds its exit status into ours: when we
// succeeded and it did not (or died of a signal), a line names it as who.
func (o *opponent) reap(grace time.Duration, status int, who string, w io.Writer) int {
	select {
	case <-o.done:
	case <-time.After(grace):
	}
	o.stop()
	<-o.done
	o.out.flush()
	if o.kept != nil {
		_, _ = io.WriteString(w, o.kept.String())
	}
	st := o.cmd.ProcessState.ExitCode() // -1 when killed by a signal
	if st != 0 {
		fmt.Fprintf(w, "pong: %s process ended: %v\n", who, o.cmd.ProcessState)
	}
	switch {
	case status != exitOK || st == 0:
		return status
	case st < 0:
		return exitFailure
	}
	return st
}

// prefixWriter writes each line with a prefix.
type prefixWriter struct {
	prefix string
	w      io.Writer
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf[:i]); err != nil {
			return len(b), err
		}
		p.buf = p.buf[i+1:]
	}
}

func (p *prefixWriter) flush() {
	if len(p.buf) > 0 {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, p.buf)
		p.buf = nil
	}
}

// syncWriter serialises writes to w, or to its own buffer (String) when
// w is nil.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
	b  bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return s.b.Write(p)
	}
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
