package entity

// positions maps a slot index to the position of its entry in a client's
// entries: open addressing with linear probing, sized to twice the
// entries at most, so a client's lookups stay in a few cache lines
// however large the table is. It allocates only when it grows.
type positions struct {
	keys  []uint32 // index+1; 0 is empty
	vals  []int32
	count int
	shift uint32
}

func (m *positions) slot(index uint32) uint32 {
	return (index * 0x9e3779b1) >> m.shift
}

// get returns index's position, or -1.
func (m *positions) get(index uint32) int32 {
	if m.count == 0 {
		return -1
	}
	mask := uint32(len(m.keys) - 1)
	for i := m.slot(index); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case index + 1:
			return m.vals[i]
		case 0:
			return -1
		}
	}
}

// set maps index to pos.
func (m *positions) set(index uint32, pos int32) {
	if (m.count+1)*2 > len(m.keys) {
		m.grow()
	}
	mask := uint32(len(m.keys) - 1)
	for i := m.slot(index); ; i = (i + 1) & mask {
		switch m.keys[i] {
		case index + 1:
			m.vals[i] = pos
			return
		case 0:
			m.keys[i], m.vals[i] = index+1, pos
			m.count++
			return
		}
	}
}

// del removes index, shifting back the entries that probed past it.
func (m *positions) del(index uint32) {
	if m.count == 0 {
		return
	}
	mask := uint32(len(m.keys) - 1)
	i := m.slot(index)
	for m.keys[i] != index+1 {
		if m.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	m.count--
	for j := (i + 1) & mask; m.keys[j] != 0; j = (j + 1) & mask {
		home := m.slot(m.keys[j] - 1)
		if (j-home)&mask >= (j-i)&mask { // j's home is not in (i, j]: it may move to i
			m.keys[i], m.vals[i] = m.keys[j], m.vals[j]
			i = j
		}
	}
	m.keys[i] = 0
}

func (m *positions) grow() {
	keys, vals := m.keys, m.vals
	n := max(2*len(keys), 64)
	m.keys, m.vals, m.count = make([]uint32, n), make([]int32, n), 0
	m.shift = 32
	for s := n; s > 1; s >>= 1 {
		m.shift--
	}
	for i, k := range keys {
		if k != 0 {
			m.set(k-1, vals[i])
		}
	}
}
