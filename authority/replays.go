package authority

// seenLen is how many sequence numbers a record remembers: the span of
// sequence numbers link.Endpoint.Accept finds plausible (1024 either side
// of the connection's anchor), so that no plausible number is forgotten
// while the anchor stays.
const seenLen = 2048

// seen remembers the sequence numbers of the packets a host acted on for
// one connection, one slot per number modulo seenLen holding the newest
// number of its class taken. A client numbers every packet it sends, so a
// number taken twice is a copy: an on-path replayer's, or the network's
// duplicate. Acting on a copy of an old AuthInput would take its old
// acknowledgement (a state the host no longer keeps: a full state, and a
// reset of the full states' pacing), which is what issue 40 items 4 and 8
// measured. A blind forger whose plausible number lands first costs the
// real packet of that number (its inputs come again in the next one),
// nothing more.
type seen struct{ seq [seenLen]uint16 }

// reset forgets every number, for a connection anchored at anchor: each
// slot holds a number of its class half the sequence space away, which no
// plausible packet carries.
func (s *seen) reset(anchor uint16) {
	for d := -seenLen/2 + 1; d <= seenLen/2; d++ {
		v := anchor + uint16(d)
		s.seq[v%seenLen] = v + 1<<15
	}
}

// again reports whether seq was taken before; if not, it is taken now.
func (s *seen) again(seq uint16) bool {
	k := seq % seenLen
	if s.seq[k] == seq {
		return true
	}
	s.seq[k] = seq
	return false
}
