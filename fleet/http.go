//go:build !js

package fleet

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/rollnet/rollnet/internal/forwarded"
)

// maxView bounds the hosts listed by the /fleet view.
const maxView = 256

// hostView is a host as a placer sees it, in the /fleet view.
type hostView struct {
	Host
	State string `json:"state"` // "live", "draining" or "gone"
	// SinceBeat is how long since this placer saw the host's Beat change.
	SinceBeat string `json:"since_beat"`
}

// fleetView is the /fleet JSON view of a placer.
type fleetView struct {
	Policy    string      `json:"policy"`
	Ready     bool        `json:"ready"`
	Hosts     []hostView  `json:"hosts"`
	Truncated bool        `json:"truncated,omitempty"`
	Stats     PlacerStats `json:"stats"`
	// P50 and P99 are the placement times of the last 1024 placements.
	P50 string `json:"placement_p50"`
	P99 string `json:"placement_p99"`
}

// view returns the placer's view of the fleet, at most 256 hosts by id.
func (p *Placer) view() fleetView {
	now := p.now()
	v := fleetView{Policy: p.cfg.Policy.String(), Ready: p.ready(), Stats: p.Stats()}
	p.mu.Lock()
	for _, m := range p.hosts {
		st := "live"
		switch {
		case !p.live(m, now):
			st = "gone"
		case m.rec.Draining:
			st = "draining"
		}
		v.Hosts = append(v.Hosts, hostView{Host: m.rec, State: st, SinceBeat: now.Sub(m.beatAt).Round(time.Millisecond).String()})
	}
	p.mu.Unlock()
	sort.Slice(v.Hosts, func(i, j int) bool { return v.Hosts[i].ID < v.Hosts[j].ID })
	if len(v.Hosts) > maxView {
		v.Hosts, v.Truncated = v.Hosts[:maxView], true
	}
	p50, p99 := p.lat.quantiles()
	v.P50, v.P99 = p50.String(), p99.String()
	return v
}

// ServeHTTP serves PlacePath (POST a Request, a Reply back) and ViewPath
// (GET the JSON view: the policy, the hosts as this placer sees them, its
// counts and placement times). A refusal is a Reply with Error and the
// status: 400 a bad request, 409 ErrVersion or ErrRoomFull, 429 ErrBusy,
// 503 ErrUnavailable or ErrNoHost.
func (p *Placer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == ViewPath && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, p.view())
	case r.URL.Path == PlacePath && r.Method == http.MethodPost:
		p.servePlace(w, r)
	case r.URL.Path == PlacePath || r.URL.Path == ViewPath:
		w.Header().Set("Allow", "GET, POST")
		writeJSON(w, http.StatusMethodNotAllowed, Reply{Error: "fleet: POST " + PlacePath + ", GET " + ViewPath})
	default:
		http.NotFound(w, r)
	}
}

func (p *Placer) servePlace(w http.ResponseWriter, r *http.Request) {
	addr := forwarded.Client(r, p.cfg.TrustedProxies)
	if !p.takeAddr(addr) {
		p.refused[reasonBusy].Add(1)
		writeJSON(w, http.StatusTooManyRequests, Reply{Error: ErrBusy.Error() + ": from this address"})
		return
	}
	if p.inFlight.Add(1) > int64(p.cfg.MaxInFlight) {
		p.inFlight.Add(-1)
		p.refused[reasonBusy].Add(1)
		writeJSON(w, http.StatusTooManyRequests, Reply{Error: ErrBusy.Error() + ": placements in flight"})
		return
	}
	defer p.inFlight.Add(-1)
	req, err := parseRequest(http.MaxBytesReader(w, r.Body, maxRequest+1))
	var rep Reply
	if err == nil {
		rep, err = p.Place(r.Context(), req)
	} else {
		p.refused[reasonBadRequest].Add(1)
	}
	if err != nil {
		p.log.Debug("fleet: placement refused", "addr", addr, "err", err)
		writeJSON(w, statusOf(err), Reply{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// maxAddrs bounds the per-address buckets kept; past it idle ones are
// swept, and if none is idle the request is refused.
const maxAddrs = 4096

type bucket struct {
	tokens float64
	at     time.Time
}

// takeAddr takes one request from the client address's token bucket.
func (p *Placer) takeAddr(ip string) bool {
	now := p.now()
	rate, burst := float64(p.cfg.AddrRate), float64(p.cfg.AddrBurst)
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.addrs[ip]
	if b == nil {
		if len(p.addrs) >= maxAddrs {
			for k, o := range p.addrs {
				if now.Sub(o.at).Seconds()*rate >= burst {
					delete(p.addrs, k)
				}
			}
			if len(p.addrs) >= maxAddrs {
				return false
			}
		}
		b = &bucket{tokens: burst, at: now}
		p.addrs[ip] = b
	}
	b.tokens = min(burst, b.tokens+now.Sub(b.at).Seconds()*rate)
	b.at = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// latency keeps the last 1024 placement times.
type latency struct {
	mu   sync.Mutex
	ring [1024]time.Duration
	n    int
}

func (l *latency) observe(d time.Duration) {
	l.mu.Lock()
	l.ring[l.n%len(l.ring)] = d
	l.n++
	l.mu.Unlock()
}

func (l *latency) quantiles() (p50, p99 time.Duration) {
	l.mu.Lock()
	s := slices.Clone(l.ring[:min(l.n, len(l.ring))])
	l.mu.Unlock()
	if len(s) == 0 {
		return 0, 0
	}
	slices.Sort(s)
	return s[len(s)*50/100], s[min(len(s)*99/100, len(s)-1)]
}
