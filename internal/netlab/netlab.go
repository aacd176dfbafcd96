//go:build linux

package netlab

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// NAT is the kind of address translation a router does.
type NAT int

// The NAT kinds (see the package doc's table).
const (
	None NAT = iota
	FullCone
	Masquerade
	Home
	Symmetric
	NoUDP
)

// Kinds are the NAT kinds a P2P pair can meet through, in the order of
// the package doc's table (NoUDP, which only TURN over TCP crosses, is
// not among them).
var Kinds = []NAT{None, FullCone, Masquerade, Home, Symmetric}

func (n NAT) String() string {
	switch n {
	case None:
		return "none"
	case FullCone:
		return "full-cone"
	case Masquerade:
		return "masquerade"
	case Home:
		return "home"
	case Symmetric:
		return "symmetric"
	case NoUDP:
		return "no-udp"
	}
	return "NAT(" + strconv.Itoa(int(n)) + ")"
}

// namePrefix starts the name of every namespace a lab makes.
const namePrefix = "rnl-"

var labs atomic.Int32 // labs made by this process, for unique names

// Lab is a set of namespaces: a public segment and what hangs off it.
type Lab struct {
	t      testing.TB
	prefix string // rnl-PID-N-
	pub    string // the namespace holding the public bridge

	mu       sync.Mutex
	spaces   []string // every namespace made, for cleanup
	nextPub  int      // last octet of the next public address
	nextLAN  int      // second octet of the next router's LAN
	nextPort int      // the next bridge port's number
}

// Host is a namespace with one link: on the public segment, or behind a
// router.
type Host struct {
	lab    *Lab
	Name   string
	NS     string // the namespace's name
	mu     sync.Mutex
	addr   netip.Addr
	router *Router // nil on the public segment
}

// Router is a namespace between the public segment and a LAN of one host.
type Router struct {
	lab  *Lab
	Name string
	NS   string
	NAT  NAT
	WAN  netip.Addr // its address on the public segment
	lan  int        // its LAN is 10.lan.0.0/24
	host *Host
}

// PublicPrefix is the public segment's network.
var PublicPrefix = netip.MustParsePrefix("203.0.113.0/24")

// Check says why a lab cannot run here, or nil.
func Check() error {
	if os.Geteuid() != 0 {
		return errors.New("netlab: needs root (network namespaces)")
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("netlab: needs %s (apt-get install iproute2 nftables): %w", tool, err)
		}
	}
	if out, err := exec.Command("ip", "netns", "list").CombinedOutput(); err != nil {
		return fmt.Errorf("netlab: ip netns does not work here: %v: %s", err, out)
	}
	return nil
}

// New makes an empty lab (the public segment only), removed at the end of
// t. Without root, ip or nft it skips t, or fails it when CI=true.
func New(t testing.TB) *Lab {
	t.Helper()
	if err := Check(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true: the lab must run)", err)
		}
		t.Skip(err)
	}
	sweep(t)
	l := &Lab{t: t, prefix: fmt.Sprintf("%s%d-%d-", namePrefix, os.Getpid(), labs.Add(1)), nextPub: 2, nextLAN: 1}
	t.Cleanup(l.close)
	l.pub = l.namespace("pub")
	l.ip("-n", l.pub, "link", "add", "br0", "type", "bridge")
	l.ip("-n", l.pub, "link", "set", "br0", "up")
	return l
}

// sweep removes the namespaces of labs whose process is gone (a test
// killed before its cleanup ran).
func sweep(t testing.TB) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		rest, ok := strings.CutPrefix(name, namePrefix)
		if !ok {
			continue
		}
		pid, _, _ := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if err != nil || n == os.Getpid() {
			continue
		}
		if err := syscall.Kill(n, 0); err == nil || errors.Is(err, syscall.EPERM) {
			continue // its lab's process still runs
		}
		t.Logf("netlab: removing %s, left by process %d", name, n)
		removeNamespace(name)
	}
}

// removeNamespace kills what still runs in ns (only processes a lab
// started run there) and deletes it, which deletes its links.
func removeNamespace(ns string) {
	if out, err := exec.Command("ip", "netns", "pids", ns).Output(); err == nil {
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	_ = exec.Command("ip", "netns", "del", ns).Run()
}

func (l *Lab) close() {
	l.mu.Lock()
	spaces := l.spaces
	l.spaces = nil
	l.mu.Unlock()
	for i := len(spaces) - 1; i >= 0; i-- {
		removeNamespace(spaces[i])
	}
}

// ip runs ip with args and fails the test if it fails.
func (l *Lab) ip(args ...string) {
	l.t.Helper()
	l.run("ip", args...)
}

func (l *Lab) run(name string, args ...string) {
	l.t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		l.t.Fatalf("netlab: %s %s: %v: %s", name, strings.Join(args, " "), err, out)
	}
}

// namespace makes a namespace for name, with its loopback up.
func (l *Lab) namespace(name string) string {
	l.t.Helper()
	ns := l.prefix + name
	l.ip("netns", "add", ns)
	l.mu.Lock()
	l.spaces = append(l.spaces, ns)
	l.mu.Unlock()
	l.ip("-n", ns, "link", "set", "lo", "up")
	return ns
}

// plug links ns to the public segment as dev with the next public
// address, which it returns.
func (l *Lab) plug(ns, dev string) netip.Addr {
	l.t.Helper()
	l.mu.Lock()
	port := fmt.Sprintf("p%d", l.nextPort)
	l.nextPort++
	a := netip.AddrFrom4([4]byte{203, 0, 113, byte(l.nextPub)})
	l.nextPub++
	l.mu.Unlock()
	l.ip("link", "add", dev, "netns", ns, "type", "veth", "peer", "name", port, "netns", l.pub)
	l.ip("-n", l.pub, "link", "set", port, "master", "br0", "up")
	l.ip("-n", ns, "addr", "add", a.String()+"/24", "dev", dev)
	l.ip("-n", ns, "link", "set", dev, "up")
	return a
}

// Public makes a host on the public segment.
func (l *Lab) Public(name string) *Host {
	l.t.Helper()
	h := &Host{lab: l, Name: name, NS: l.namespace(name)}
	h.addr = l.plug(h.NS, "eth0")
	return h
}

// Player makes a host behind a router of kind nat (named after it), or on
// the public segment for None.
func (l *Lab) Player(name string, nat NAT) *Host {
	l.t.Helper()
	if nat == None {
		return l.Public(name)
	}
	return l.Router(name+"-gw", nat).Host(name)
}

// Router makes a router of kind nat (not None) with no host behind it yet.
func (l *Lab) Router(name string, nat NAT) *Router {
	l.t.Helper()
	if nat == None {
		l.t.Fatalf("netlab: a router needs a NAT kind; for none, use Public")
	}
	l.mu.Lock()
	lan := l.nextLAN
	l.nextLAN++
	l.mu.Unlock()
	r := &Router{lab: l, Name: name, NS: l.namespace(name), NAT: nat, lan: lan}
	r.WAN = l.plug(r.NS, "wan")
	l.run("ip", "netns", "exec", r.NS, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
	return r
}

// LANAddr is the address of the host behind r.
func (r *Router) LANAddr() netip.Addr { return netip.AddrFrom4([4]byte{10, byte(r.lan), 0, 2}) }

func (r *Router) gateway() netip.Addr { return netip.AddrFrom4([4]byte{10, byte(r.lan), 0, 1}) }

// Host makes a host behind r (a router holds one).
func (r *Router) Host(name string) *Host {
	r.lab.t.Helper()
	h := &Host{lab: r.lab, Name: name, NS: r.lab.namespace(name)}
	h.attach(r)
	return h
}

// attach links h to r's LAN and loads r's rules for h.
func (h *Host) attach(r *Router) {
	l := h.lab
	l.t.Helper()
	if r.host != nil {
		l.t.Fatalf("netlab: router %s already has host %s", r.Name, r.host.Name)
	}
	l.ip("link", "add", "eth0", "netns", h.NS, "type", "veth", "peer", "name", "lan", "netns", r.NS)
	l.ip("-n", r.NS, "addr", "add", r.gateway().String()+"/24", "dev", "lan")
	l.ip("-n", r.NS, "link", "set", "lan", "up")
	l.ip("-n", h.NS, "addr", "add", r.LANAddr().String()+"/24", "dev", "eth0")
	l.ip("-n", h.NS, "link", "set", "eth0", "up")
	l.ip("-n", h.NS, "route", "add", "default", "via", r.gateway().String())
	r.rules(r.LANAddr())
	r.host = h
	h.mu.Lock()
	h.addr, h.router = r.LANAddr(), r
	h.mu.Unlock()
}

// MoveTo unplugs h from its router and plugs it behind r (which has no
// host): h gets r's LAN address, and the public segment sees it at r's
// WAN address. Connections h had are cut.
func (h *Host) MoveTo(r *Router) {
	l := h.lab
	l.t.Helper()
	h.mu.Lock()
	old := h.router
	h.mu.Unlock()
	if old == nil {
		l.t.Fatalf("netlab: %s is on the public segment, not behind a router", h.Name)
	}
	l.ip("-n", h.NS, "link", "del", "eth0") // and its peer, old's lan
	old.host = nil
	h.attach(r)
}

// Addr is h's own address (public, or on its router's LAN).
func (h *Host) Addr() netip.Addr {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.addr
}

// PublicAddr is the address the public segment sees h at.
func (h *Host) PublicAddr() netip.Addr {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.router != nil {
		return h.router.WAN
	}
	return h.addr
}

// Router is h's router, nil on the public segment.
func (h *Host) Router() *Router {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.router
}

// Command is name run with args inside h (ip netns exec), killed when ctx
// ends.
func (h *Host) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", h.NS, name}, args...)...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
