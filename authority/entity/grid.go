package entity

import "math"

// Grid is a uniform spatial grid over entity positions, for interest by
// distance: the game inserts each live entity's position every tick and
// asks for the indices near a point. Cells are hashed into a table sized
// once, so the grid has no bounds and allocates nothing after NewGrid.
type Grid struct {
	cell float32
	mask uint32
	head []int32     // by bucket: first index, or -1
	at   []gridEntry // by index
}

// gridEntry is where an index is, in one cache line's share.
type gridEntry struct {
	next   int32 // next index in its bucket, or -1
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
	g := &Grid{
		cell: cell, mask: uint32(buckets - 1),
		head: make([]int32, buckets), at: make([]gridEntry, capacity),
	}
	g.Clear()
	return g
}

// Clear empties the grid.
func (g *Grid) Clear() {
	for i := range g.head {
		g.head[i] = -1
	}
}

// Insert places index at (x, y). An index is inserted at most once
// between Clears.
func (g *Grid) Insert(index int, x, y float32) {
	cx, cy := g.cellOf(x), g.cellOf(y)
	b := g.bucket(cx, cy)
	g.at[index] = gridEntry{next: g.head[b], cx: cx, cy: cy, x: x, y: y}
	g.head[b] = int32(index)
}

// AppendNear appends to dst the indices within radius r of (x, y), and
// returns the extended slice; it does not allocate when dst has room.
func (g *Grid) AppendNear(dst []int32, x, y, r float32) []int32 {
	x0, x1 := g.cellOf(x-r), g.cellOf(x+r)
	y0, y1 := g.cellOf(y-r), g.cellOf(y+r)
	r2 := r * r
	for cy := y0; cy <= y1; cy++ {
		for cx := x0; cx <= x1; cx++ {
			for i := g.head[g.bucket(cx, cy)]; i >= 0; {
				e := &g.at[i]
				if e.cx == cx && e.cy == cy { // not another cell hashed to this bucket
					dx, dy := e.x-x, e.y-y
					if dx*dx+dy*dy <= r2 {
						dst = append(dst, i)
					}
				}
				i = e.next
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
