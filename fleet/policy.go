package fleet

import (
	"cmp"
	"fmt"
	"slices"
)

// Policy chooses among the hosts with room for a new match.
type Policy uint8

const (
	// Fill places on the fullest host first (most clients placed, then
	// most matches): fewer machines run, the idle ones can be scaled down.
	Fill Policy = iota
	// Spread places on the emptiest host first: the load is even.
	Spread
)

// ParsePolicy reads "fill" or "spread".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "fill":
		return Fill, nil
	case "spread":
		return Spread, nil
	}
	return 0, fmt.Errorf("%w: policy %q: want fill or spread", errConfig, s)
}

func (p Policy) String() string {
	if p == Spread {
		return "spread"
	}
	return "fill"
}

// order sorts the candidate hosts, best first, by p: by the share of
// clients placed (then of matches), ties broken by id so that every placer
// agrees.
func (p Policy) order(hosts []*Host) {
	slices.SortFunc(hosts, func(a, b *Host) int {
		// a.Used/a.Clients vs b.Used/b.Clients without division.
		c := cmp.Compare(a.used()*b.Capacity.Clients, b.used()*a.Capacity.Clients)
		if c == 0 {
			c = cmp.Compare(len(a.Matches)*b.Capacity.Matches, len(b.Matches)*a.Capacity.Matches)
		}
		if p == Fill {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(a.ID, b.ID)
		}
		return c
	})
}
