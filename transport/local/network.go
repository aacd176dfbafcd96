package local

import (
	"fmt"
	"sync"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/elapsed"
	"github.com/rollnet/rollnet/internal/linkmodel"
	"github.com/rollnet/rollnet/transport"
)

// Network is an in-process network of named endpoints. It is safe for
// concurrent use; one mutex guards it all, and it starts no goroutines.
type Network struct {
	mu    sync.Mutex
	cfg   Config
	epoch time.Time
	since elapsed.Origin // epoch's
	seq   uint64

	nodes map[string]*node
	links map[dirKey]*link
	order []*link // every link, in creation order, for the stats sums

	// The last clock reading and now's answer for it: a fake clock
	// reads the same between its moves, and even elapsed.Nanos costs
	// some.
	read   time.Time
	readNs int64
}

// node is a name on the network; its endpoint may be closed and reopened.
type node struct {
	name string
	ep   *endpoint // the latest endpoint opened under name
}

type dirKey struct{ from, to string }

// link is the state of one direction from → to.
type link struct {
	from, to    string
	own         bool            // model's link set by SetLink; otherwise the network default
	model       linkmodel.Model // the fate of each datagram
	last        int64           // latest delivery time queued, for Ordered
	partitioned bool
	stats       Stats
	lane        *lane  // this direction's lane in its receiver's queue
	laneOf      *queue // the queue lane belongs to (a reopened endpoint has a new one)

	// Whether expEp expects from (Endpoint.expects) at its Expect number
	// expGen.
	expEp  *endpoint
	expGen uint64
	expOK  bool
}

// Stats counts datagrams on one link direction, or summed over several.
// Every datagram Send accepts, and every duplicate, ends in exactly one of
// Delivered, Lost, Partitioned, DroppedFull, DroppedShort, DroppedClosed,
// DroppedUnexpected, or is still InFlight:
//
//	Sent + Duplicated == Delivered + Lost + Partitioned + DroppedFull +
//	                     DroppedShort + DroppedClosed + DroppedUnexpected +
//	                     InFlight
type Stats struct {
	Sent          uint64 // datagrams accepted by Send
	Duplicated    uint64 // extra copies made by Link.Duplicate
	Delivered     uint64 // handed to the receiver by Receive
	Lost          uint64 // lost to Loss or burst loss
	Partitioned   uint64 // lost to a partition (sent during it, or in flight when it began)
	DroppedFull   uint64 // the receiver's queue was full and this sender held the most of it
	DroppedShort  uint64 // the receiver's buffer was too short (ErrShortBuffer)
	DroppedClosed uint64 // the receiver closed with the datagram still queued
	// DroppedUnexpected counts datagrams from a sender the receiver does
	// not expect (Endpoint.Expect): refused on arrival, or dropped from the
	// queue when Expect left the sender out.
	DroppedUnexpected uint64
	InFlight          uint64 // queued at the receiver now, delivered or not yet due
}

func (s *Stats) add(o Stats) {
	s.Sent += o.Sent
	s.Duplicated += o.Duplicated
	s.Delivered += o.Delivered
	s.Lost += o.Lost
	s.Partitioned += o.Partitioned
	s.DroppedFull += o.DroppedFull
	s.DroppedShort += o.DroppedShort
	s.DroppedClosed += o.DroppedClosed
	s.DroppedUnexpected += o.DroppedUnexpected
	s.InFlight += o.InFlight
}

// NewNetwork returns an empty network. It fails with rollnet.ErrConfig or rollnet.ErrConfig
// for a Config out of range.
func NewNetwork(cfg Config) (*Network, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	epoch := cfg.Now()
	return &Network{
		cfg:   cfg,
		epoch: epoch,
		since: elapsed.From(epoch),
		read:  epoch,
		nodes: make(map[string]*node),
		links: make(map[dirKey]*link),
	}, nil
}

// Endpoint opens the endpoint called name, whose peer identity is
// transport.Peer(name). It fails with rollnet.ErrConfig for an empty name and with
// ErrNameTaken while an endpoint of that name is open. A closed endpoint's
// name may be opened again: the new endpoint starts with an empty queue and
// keeps the name's links, their settings, randomness and stats.
func (n *Network) Endpoint(name string) (Endpoint, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: local: empty endpoint name", rollnet.ErrConfig)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	nd := n.nodes[name]
	if nd == nil {
		nd = &node{name: name}
		n.nodes[name] = nd
	}
	if nd.ep != nil && !nd.ep.closed {
		return nil, fmt.Errorf("%w: %q", ErrNameTaken, name)
	}
	nd.ep = &endpoint{net: n, node: nd, q: newQueue(n.cfg.QueueLen)}
	return nd.ep, nil
}

// SetLink sets the link of the direction from → to, overriding the default
// link for it. Names need not be open yet. It fails with rollnet.ErrConfig for a Link
// out of range.
func (n *Network) SetLink(from, to string, l Link) error {
	l, err := l.validate()
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	lk := n.link(from, to)
	lk.own = true
	lk.model.Set(l.model())
	return nil
}

// SetDefaultLink replaces the default link, used by every direction without
// a SetLink of its own. It fails with rollnet.ErrConfig for a Link out of range.
func (n *Network) SetDefaultLink(l Link) error {
	l, err := l.validate()
	if err != nil {
		return err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.cfg.Link = l
	for _, lk := range n.order {
		if !lk.own {
			lk.model.Set(l.model())
		}
	}
	return nil
}

// Partition cuts both directions between a and b: datagrams in flight
// between them are lost, and so is every datagram sent between them until
// Heal. Both count as Stats.Partitioned.
func (n *Network) Partition(a, b string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, lk := range [2]*link{n.link(a, b), n.link(b, a)} {
		lk.partitioned = true
		if nd := n.nodes[lk.to]; nd != nil && nd.ep != nil && !nd.ep.closed {
			nd.ep.q.removeIf(lk, func(*arrival) bool {
				lk.stats.InFlight--
				lk.stats.Partitioned++
				return true
			})
		}
	}
}

// Heal ends the partition between a and b. Datagrams sent from now on travel
// as before.
func (n *Network) Heal(a, b string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.link(a, b).partitioned = false
	n.link(b, a).partitioned = false
}

// LinkStats returns the counts of the direction from → to (zero if it never
// carried a datagram).
func (n *Network) LinkStats(from, to string) Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	if lk := n.links[dirKey{from, to}]; lk != nil {
		return lk.stats
	}
	return Stats{}
}

// Stats returns the counts summed over every link of the network.
func (n *Network) Stats() Stats {
	n.mu.Lock()
	defer n.mu.Unlock()
	var s Stats
	for _, lk := range n.order {
		s.add(lk.stats)
	}
	return s
}

// link returns the state of from → to, creating it on first use with the
// default link and its own seed. Called with n.mu held.
func (n *Network) link(from, to string) *link {
	k := dirKey{from, to}
	lk := n.links[k]
	if lk == nil {
		lk = &link{from: from, to: to, model: linkmodel.New(n.cfg.Link.model(), linkmodel.Seed(n.cfg.Seed, from, to))}
		n.links[k] = lk
		n.order = append(n.order, lk)
	}
	return lk
}

// now is the clock reading in nanoseconds since the epoch. Called with n.mu
// held.
func (n *Network) now() int64 {
	t := n.cfg.Now()
	if t != n.read { // the same fields, so the same difference: a memo, not a comparison of instants
		n.read, n.readNs = t, n.since.Nanos(t)
	}
	return n.readNs
}

// send runs one datagram through the link from → dst. Called with n.mu held.
func (n *Network) send(lk *link, dst *endpoint, b []byte) {
	lk.stats.Sent++
	if lk.partitioned {
		lk.model.Skip()
		lk.stats.Partitioned++
		return
	}
	f := lk.model.Next()
	if f.Lost {
		lk.stats.Lost++
		return
	}
	now := n.now()
	n.enqueue(lk, dst, now+int64(f.Delay), b)
	if f.Duplicate {
		lk.stats.Duplicated++
		n.enqueue(lk, dst, now+int64(f.DuplicateDelay), b)
	}
}

func (n *Network) enqueue(lk *link, dst *endpoint, at int64, b []byte) {
	if lk.model.Link().Ordered {
		at = max(at, lk.last)
	}
	if !lk.expects(dst) {
		lk.stats.DroppedUnexpected++
		return
	}
	n.seq++
	dropped := dst.q.push(dst.q.lane(lk), lk, at, n.seq, b)
	if dropped != nil {
		dropped.stats.DroppedFull++
	}
	if dropped == lk { // refused: lk holds the most of a full queue
		return
	}
	lk.last = max(lk.last, at)
	lk.stats.InFlight++
}

var (
	_ transport.Transport = (*endpoint)(nil)
	_ transport.Expecter  = (*endpoint)(nil)
)
