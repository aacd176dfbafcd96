package entity

import (
	"math"
	"slices"
)

// Grid is a uniform spatial grid over entity positions, for interest by
// distance: the game inserts each live entity's position every tick and
// asks for the indices near a point. Cells are hashed into a table sized
// once, so the grid has no bounds and allocates nothing after NewGrid
// (AppendNear grows only dst).
//
// Inserting an index again moves it, and costs little when it stays in
// its cell: a game whose entities persist inserts each one every tick
// and calls Clear only to empty the grid. A query reads each cell's
// entries from one run of memory, ordered by cell when the grid was last
// laid out, plus the entries that entered or changed cells since then;
// a query lays the grid out again once those have cost it about as much
// as the layout does (one pass over the entries), and always after a
// Clear. A Grid is not safe for concurrent use.
type Grid struct {
	cell    float32
	mask    uint32
	at      []gridPlace // by index
	ins     []int32     // the indices present, in the order first inserted since Clear
	start   []int32     // by bucket: its first entry in sorted; start[b+1] ends it
	sorted  []gridEntry // the entries by bucket at the last layout; one since moved has a NaN x
	moved   []gridEntry // the entries inserted or moved to another cell since the layout
	seen    []uint32    // by bucket: the query that last read it
	gen     uint32      // bumps on Clear: an index is present when its place has this gen
	query   uint32      // counts queries, for seen
	scanned int         // entries of moved read by queries since the layout
	laidOut bool        // sorted and start hold ins (false after a Clear)
}

// gridPlace is where an index is.
type gridPlace struct {
	x, y   float32
	cx, cy int32 // its cell
	bucket uint32
	pos    int32 // its entry in sorted, or -1-pos for its entry in moved
	gen    uint32
}

// gridEntry is an index's position, where queries read it.
type gridEntry struct {
	x, y  float32
	index int32
}

// NewGrid returns an empty grid of cells cell wide (in the game's units)
// for indices below capacity. A cell about the interest radius wide keeps
// queries cheap.
func NewGrid(cell float32, capacity int) *Grid {
	if !(cell > 0) || capacity <= 0 {
		panic("entity: NewGrid needs a cell above 0 and a capacity above 0")
	}
	buckets := 1
	for buckets < capacity {
		buckets <<= 1
	}
	return &Grid{
		cell: cell, mask: uint32(buckets - 1),
		at: make([]gridPlace, capacity), ins: make([]int32, 0, capacity),
		start: make([]int32, buckets+1), sorted: make([]gridEntry, 0, capacity),
		moved: make([]gridEntry, 0, capacity), seen: make([]uint32, buckets),
		gen: 1,
	}
}

// Clear empties the grid.
func (g *Grid) Clear() {
	g.ins, g.moved = g.ins[:0], g.moved[:0]
	g.laidOut = false
	if g.gen++; g.gen == 0 { // wrapped: no place may still claim the new gen
		clear(g.at)
		g.gen = 1
	}
}

// Insert places index at (x, y), or moves it there when it is in the
// grid already.
func (g *Grid) Insert(index int, x, y float32) {
	cx, cy := g.cellOf(x), g.cellOf(y)
	p := &g.at[index]
	if p.gen == g.gen { // present: moved
		if p.pos < 0 {
			m := &g.moved[-1-p.pos]
			m.x, m.y = x, y
			p.x, p.y, p.cx, p.cy, p.bucket = x, y, cx, cy, g.bucket(cx, cy)
			return
		}
		if p.cx == cx && p.cy == cy {
			s := &g.sorted[p.pos]
			s.x, s.y = x, y
			p.x, p.y = x, y
			return
		}
		g.sorted[p.pos].x = float32(math.NaN()) // out of every query's reach
	} else {
		p.gen = g.gen
		g.ins = append(g.ins, int32(index))
	}
	*p = gridPlace{x: x, y: y, cx: cx, cy: cy, bucket: g.bucket(cx, cy), pos: -1 - int32(len(g.moved)), gen: g.gen}
	g.moved = append(g.moved, gridEntry{x: x, y: y, index: int32(index)})
}

// layout orders the present entries by bucket (a counting sort) and
// empties moved.
func (g *Grid) layout() {
	clear(g.start)
	for _, i := range g.ins {
		g.start[g.at[i].bucket+1]++
	}
	for b := 1; b < len(g.start); b++ {
		g.start[b] += g.start[b-1]
	}
	g.sorted = g.sorted[:len(g.ins)]
	for _, i := range g.ins {
		p := &g.at[i]
		pos := g.start[p.bucket]
		g.sorted[pos] = gridEntry{x: p.x, y: p.y, index: i}
		p.pos = pos
		g.start[p.bucket]++
	}
	// Each start now ends its bucket: shift them back by one bucket.
	copy(g.start[1:], g.start[:len(g.start)-1])
	g.start[0] = 0
	g.moved = g.moved[:0]
	g.scanned = 0
	g.laidOut = true
}

// AppendNear appends to dst the indices within radius r of (x, y), and
// returns the extended slice; it does not allocate when dst has room for
// them and for one cell's entries more.
func (g *Grid) AppendNear(dst []int32, x, y, r float32) []int32 {
	if !(r >= 0) {
		return dst
	}
	if !g.laidOut || g.scanned > len(g.ins) {
		g.layout()
	}
	g.scanned += len(g.moved)
	r2 := r * r
	x0, x1 := g.cellOf(x-r), g.cellOf(x+r)
	y0, y1 := g.cellOf(y-r), g.cellOf(y+r)
	if (int64(x1)-int64(x0)+1)*(int64(y1)-int64(y0)+1) >= int64(len(g.seen)) {
		dst = near(dst, g.sorted, x, y, r2) // the window covers every bucket
		return near(dst, g.moved, x, y, r2)
	}
	if g.query++; g.query == 0 {
		clear(g.seen)
		g.query = 1
	}
	// Each bucket of the window is read once: an entry of another cell
	// hashed to it is as far as its distance says, so none is missed or
	// repeated.
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			b := g.bucket(cx, cy)
			if g.seen[b] == g.query {
				continue
			}
			g.seen[b] = g.query
			if lo, hi := g.start[b], g.start[b+1]; lo < hi {
				dst = near(dst, g.sorted[lo:hi], x, y, r2)
			}
		}
	}
	return near(dst, g.moved, x, y, r2)
}

// near appends the indices of the entries within sqrt(r2) of (x, y):
// each one is written, and kept by moving past it only when near, with
// no branch to mispredict.
func near(dst []int32, es []gridEntry, x, y, r2 float32) []int32 {
	n := len(dst)
	buf := slices.Grow(dst, len(es))[:n+len(es)]
	for _, e := range es {
		dx, dy := e.x-x, e.y-y
		buf[n] = e.index
		if dx*dx+dy*dy <= r2 {
			n++
		}
	}
	return buf[:n]
}

func (g *Grid) cellOf(v float32) int32 {
	c := math.Floor(float64(v / g.cell))
	return int32(max(min(c, math.MaxInt32/2), math.MinInt32/2))
}

func (g *Grid) bucket(cx, cy int32) uint32 {
	return (uint32(cx)*0x9e3779b1 ^ uint32(cy)*0x85ebca77) & g.mask
}
