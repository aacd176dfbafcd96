package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// impairment is the -impair flag: latency, jitter and loss added to every
// datagram, each way (see impaired).
type impairment struct {
	Latency time.Duration
	Jitter  time.Duration
	Loss    float64 // 0..1
}

// maxImpair bounds -impair's latency plus jitter, each way. Two players
// who both impair this much have a round trip of four times it, and the
// handshake needs five round trips: 20 s, inside syncTimeout. (The game
// crawls long before: the rollback window covers about half a second, so
// past a round trip of that much each frame waits for the network.)
const maxImpair = time.Second

// label is the impairment in words, for the screen and the report.
func (im impairment) label() string {
	s := im.Latency.String()
	if im.Jitter > 0 {
		s += "±" + im.Jitter.String()
	}
	if im.Loss > 0 {
		s += fmt.Sprintf(" %g%% loss", im.Loss*100)
	}
	return s + " each way"
}

func (im *impairment) String() string {
	if im == nil || *im == (impairment{}) {
		return ""
	}
	return fmt.Sprintf("%v,%v,%g%%", im.Latency, im.Jitter, im.Loss*100)
}

// Set parses "latency[,jitter[,loss%]]", e.g. "100ms,15ms,2%".
func (im *impairment) Set(v string) error {
	parts := strings.Split(v, ",")
	if len(parts) > 3 || v == "" {
		return fmt.Errorf("want latency,jitter,loss%% (e.g. 100ms,15ms,2%%), got %q", v)
	}
	var out impairment
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if i < 2 {
			d, err := time.ParseDuration(p)
			if err != nil || d < 0 || d > maxImpair {
				return fmt.Errorf("bad duration %q (0 to %v, e.g. 100ms)", p, maxImpair)
			}
			if i == 0 {
				out.Latency = d
			} else {
				out.Jitter = d
			}
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(p, "%"), 64)
		if err != nil || f < 0 || f > 100 {
			return fmt.Errorf("bad loss %q (0%% to 100%%)", p)
		}
		out.Loss = f / 100
	}
	if out.Jitter > out.Latency {
		return fmt.Errorf("jitter %v larger than latency %v", out.Jitter, out.Latency)
	}
	if out.Latency+out.Jitter > maxImpair {
		return fmt.Errorf("latency+jitter %v over %v: the handshake could not finish", out.Latency+out.Jitter, maxImpair)
	}
	*im = out
	return nil
}
