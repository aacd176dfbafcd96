//go:build linux

package netlab

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// ListenUDP opens a UDP socket inside h on port (0: any), for a test's own
// probes: a socket keeps the namespace it was made in.
func (h *Host) ListenUDP(port int) (*net.UDPConn, error) {
	var c *net.UDPConn
	err := h.inside(func() (err error) {
		c, err = net.ListenUDP("udp4", &net.UDPAddr{Port: port})
		return err
	})
	return c, err
}

// Listen opens a listening socket inside h (net.Listen's network and
// address), for a server the test runs itself there.
func (h *Host) Listen(network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := h.inside(func() (err error) {
		ln, err = net.Listen(network, addr)
		return err
	})
	return ln, err
}

// DialContext connects from inside h (net.Dialer's network and address):
// an http.Transport's DialContext, so that a test's client speaks from
// h's address.
func (h *Host) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := h.inside(func() (err error) {
		var d net.Dialer
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// inside runs f on an OS thread moved into h's namespace, on a goroutine
// of its own: if the thread cannot be moved back, it stays locked and dies
// with that goroutine instead of carrying the namespace elsewhere.
func (h *Host) inside(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		self, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer self.Close()
		target, err := os.Open("/run/netns/" + h.NS)
		if err != nil {
			runtime.UnlockOSThread()
			done <- err
			return
		}
		defer target.Close()
		if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("netlab: setns %s: %w", h.NS, err)
			return
		}
		ferr := f()
		if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- fmt.Errorf("netlab: back from %s: %w", h.NS, err) // the thread stays locked and ends
			return
		}
		runtime.UnlockOSThread()
		done <- ferr
	}()
	return <-done
}
