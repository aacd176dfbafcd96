package entity

import "math"

// Grid is a uniform spatial grid over entity positions, for interest by
// distance: the game inserts each live entity's position every tick and
// asks for the indices near a point. Cells are hashed into a table sized
// once, so the grid has no bounds and allocates nothing after NewGrid.
// The first query after an Insert or a Clear orders the entries by cell
// (one pass over them), so a query reads each cell's entries from one
// run of memory; a Grid is not safe for concurrent use.
type Grid struct {
	cell   float32
	mask   uint32
	at     []gridEntry // by index
	ins    []int32     // the indices inserted since Clear, in order
	start  []int32     // by bucket: its first entry in sorted; start[b+1] ends it
	sorted []gridEntry // the entries in bucket order
	dirty  bool        // inserted or cleared since sorted was made
}

// gridEntry is where an index is.
type gridEntry struct {
	index  int32
	bucket uint32
	cx, cy int32 // its cell
	x, y   float32
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
		at: make([]gridEntry, capacity), ins: make([]int32, 0, capacity),
		start: make([]int32, buckets+1), sorted: make([]gridEntry, 0, capacity),
		dirty: true,
	}
}

// Clear empties the grid.
func (g *Grid) Clear() {
	g.ins = g.ins[:0]
	g.dirty = true
}

// Insert places index at (x, y). An index is inserted at most once
// between Clears.
func (g *Grid) Insert(index int, x, y float32) {
	cx, cy := g.cellOf(x), g.cellOf(y)
	g.at[index] = gridEntry{index: int32(index), bucket: g.bucket(cx, cy), cx: cx, cy: cy, x: x, y: y}
	if len(g.ins) < cap(g.ins) {
		g.ins = append(g.ins, int32(index))
	}
	g.dirty = true
}

// order sorts the inserted entries by bucket (a counting sort).
func (g *Grid) order() {
	clear(g.start)
	for _, i := range g.ins {
		g.start[g.at[i].bucket+1]++
	}
	for b := 1; b < len(g.start); b++ {
		g.start[b] += g.start[b-1]
	}
	g.sorted = g.sorted[:len(g.ins)]
	for _, i := range g.ins {
		e := &g.at[i]
		g.sorted[g.start[e.bucket]] = *e
		g.start[e.bucket]++
	}
	// Each start now ends its bucket: shift them back by one bucket.
	copy(g.start[1:], g.start[:len(g.start)-1])
	g.start[0] = 0
	g.dirty = false
}

// AppendNear appends to dst the indices within radius r of (x, y), and
// returns the extended slice; it does not allocate when dst has room.
func (g *Grid) AppendNear(dst []int32, x, y, r float32) []int32 {
	if g.dirty {
		g.order()
	}
	x0, x1 := g.cellOf(x-r), g.cellOf(x+r)
	y0, y1 := g.cellOf(y-r), g.cellOf(y+r)
	r2 := r * r
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			b := g.bucket(cx, cy)
			for _, e := range g.sorted[g.start[b]:g.start[b+1]] {
				if e.cx == cx && e.cy == cy { // not another cell hashed to this bucket
					dx, dy := e.x-x, e.y-y
					if dx*dx+dy*dy <= r2 {
						dst = append(dst, e.index)
					}
				}
			}
		}
	}
	return dst
}

func (g *Grid) cellOf(v float32) int32 {
	c := math.Floor(float64(v / g.cell))
	return int32(max(min(c, math.MaxInt32/2), math.MinInt32/2))
}

func (g *Grid) bucket(cx, cy int32) uint32 {
	return (uint32(cx)*0x9e3779b1 ^ uint32(cy)*0x85ebca77) & g.mask
}
