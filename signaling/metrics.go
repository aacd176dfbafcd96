package signaling

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet/signaling/internal/wire"
)

// Why a request was refused before the upgrade, for the metrics.
const (
	rejectBadRequest = iota
	rejectToken
	rejectConnections
	rejectJoinRate
	rejectClosing
	rejectCluster
	rejectUpgrade
	numRejectReasons
)

func rejectReasonOf(status int, msg string) int {
	switch {
	case status == http.StatusBadRequest:
		return rejectBadRequest
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return rejectToken
	case status == http.StatusTooManyRequests && strings.HasPrefix(msg, wire.ErrJoinRateLimited.Error()):
		return rejectJoinRate
	case status == http.StatusTooManyRequests:
		return rejectConnections
	case strings.HasPrefix(msg, wire.ErrClusterUnavailable.Error()):
		return rejectCluster
	case status == http.StatusServiceUnavailable:
		return rejectClosing
	}
	return rejectUpgrade
}

// pairingBuckets are the upper bounds, in seconds, of the pairing latency
// histogram: from a room's first join to its second.
var pairingBuckets = [...]float64{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300}

// pairingHistogram counts pairing latencies with atomics: observing one is
// a few adds, and the single-instance path pays nothing more.
type pairingHistogram struct {
	buckets [len(pairingBuckets)]atomic.Uint64
	count   atomic.Uint64
	sumNs   atomic.Int64
}

func (s *Server) observePairing(d time.Duration) {
	h := &s.pairing
	for i, ub := range pairingBuckets {
		if d.Seconds() <= ub {
			h.buckets[i].Add(1)
		}
	}
	h.count.Add(1)
	h.sumNs.Add(int64(d))
}

// ready reports whether the server takes joins: not closing, and, as one
// of a set of instances, connected to NATS with its rooms current. GET
// /readyz answers 200 "ready" or 503 with why.
func (s *Server) ready() bool { return s.notReady() == "" }

func (s *Server) notReady() string {
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	switch {
	case closing:
		return "closing"
	case s.cluster != nil && !s.cluster.ready():
		return "cluster unavailable: NATS unreachable"
	}
	return ""
}

func (s *Server) serveReady(w http.ResponseWriter) {
	if why := s.notReady(); why != "" {
		http.Error(w, why, http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}
